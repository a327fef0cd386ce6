// MCP over stdio, driven by the SDK's own client against the real `toolgate serve --stdio` process.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EmptyResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  cpuShare,
  FIXTURE_MANIFESTS,
  ROOT,
  startStdio,
  threadCount,
  toolgateEntry,
  waitFor,
  type StdioServer,
} from './helpers.js';

describe('toolgate serve --stdio', () => {
  let s: StdioServer;
  beforeAll(async () => {
    s = await startStdio(['--manifests', FIXTURE_MANIFESTS, '--builtin-tools']);
  });
  afterAll(async () => {
    await s?.close();
  });

  test('tools/list shows name, title, description, inputSchema, annotations, and outputSchema only for object outputs', async () => {
    const { tools } = await s.client.listTools();
    const echo = tools.find((t) => t.name === 'wasm_echo');
    expect(echo).toMatchObject({
      name: 'wasm_echo',
      title: 'WASM echo',
      description: 'Returns its arguments unchanged (a WebAssembly echo for the server tests).',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
    const spin = tools.find((t) => t.name === 'spin');
    expect(spin).toBeDefined();
    expect(spin).not.toHaveProperty('outputSchema');
    // host-only fields never reach the model
    expect(JSON.stringify(tools)).not.toMatch(/capabilities|timeout|max_pages|server_spin\.wasm/);
  });

  test('a WASM tool call goes through the pipeline and returns content and structuredContent', async () => {
    const r = await s.client.callTool({ name: 'wasm_echo', arguments: { text: 'héllo' } });
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ text: 'héllo' });
    expect(r.content).toEqual([{ type: 'text', text: '{"text":"héllo"}' }]);
    expect(r._meta?.['toolgate/callId']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('a tool failure is an isError result carrying the code, not a JSON-RPC error', async () => {
    const r = await s.client.callTool({ name: 'wasm_fail', arguments: {} });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: 'text', text: 'the tool refused: always fails' }]);
    expect(r._meta?.['toolgate/error']).toMatchObject({ code: 'TOOL_ERROR' });
  });

  test('invalid arguments are an isError INVALID_ARGS result naming the field', async () => {
    const r = await s.client.callTool({ name: 'wasm_echo', arguments: { text: 5 } });
    expect(r.isError).toBe(true);
    expect(r._meta?.['toolgate/error']).toMatchObject({ code: 'INVALID_ARGS' });
    expect(JSON.stringify(r.content)).toContain('text');
  });

  test('an unknown tool is a JSON-RPC InvalidParams error', async () => {
    const err = await s.client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).message).toContain('no_such_tool');
  });

  test('an unknown method is a JSON-RPC MethodNotFound error', async () => {
    // (prompts/list is served now: modules may serve prompts; docs/mcp.md)
    const err = await s.client
      .request({ method: 'toolgate/no-such-method', params: {} } as never, EmptyResultSchema)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as McpError).code).toBe(ErrorCode.MethodNotFound);
  });

  test('cancelling a spinning call answers the client, tears the instance down, and the next call works', async () => {
    await s.client.callTool({ name: 'wasm_echo', arguments: { text: 'warm' } });
    const before = threadCount(s.pid);
    const ac = new AbortController();
    const pending = s.client.callTool({ name: 'spin', arguments: {} }, undefined, { signal: ac.signal });
    // the spin instance is up (a worker thread more) and burning a core
    await waitFor('the spin instance to start', () => (threadCount(s.pid) > before ? true : undefined));
    // (a shared machine: the spinning thread gets what the scheduler gives it)
    expect(await cpuShare(s.pid, 300)).toBeGreaterThan(0.2);
    // counted once it is surely running, with whatever threads it started
    const spinning = threadCount(s.pid);
    const t0 = performance.now();
    ac.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    expect(performance.now() - t0).toBeLessThan(1000);
    // torn down: nothing spins any more; at most an idle replacement took its place
    await waitFor('the spinning instance to stop', async () => ((await cpuShare(s.pid, 200)) < 0.1 ? true : undefined));
    // a worker's exit is asynchronous and the process may start other threads meanwhile, so wait for the count to settle
    // rather than sampling it once; a spin instance that was never torn down keeps it (and the CPU share) up
    await waitFor(
      'the thread count to come back down',
      () => (threadCount(s.pid) <= spinning ? true : undefined),
      5_000,
    );
    const next = await s.client.callTool({ name: 'wasm_echo', arguments: { text: 'after' } });
    expect(next.structuredContent).toEqual({ text: 'after' });
    // and the spinning tool itself still answers (its deadline here is the short one)
    const again = await s.client.callTool({ name: 'spin_short', arguments: {} });
    expect(again.isError).toBe(true);
  });

  test('50 concurrent calls are all answered, each once and with its own result', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        s.client.callTool({ name: i % 5 === 0 ? 'echo' : 'wasm_echo', arguments: { text: `n${i}` } }),
      ),
    );
    expect(results).toHaveLength(50);
    results.forEach((r, i) => {
      expect(r.isError).toBe(false);
      expect(JSON.stringify(r.content)).toContain(`n${i}`);
    });
    const ids = new Set(results.map((r) => r._meta?.['toolgate/callId']));
    expect(ids.size).toBe(50);
  });
});

test('stdout carries nothing but JSON-RPC (garbage input, failing tools, progress notifications before the answer)', async () => {
  const entry = await toolgateEntry();
  const proc = spawn(process.execPath, [entry, 'serve', '--stdio', '--manifests', FIXTURE_MANIFESTS], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', TOOLGATE_LOG_LEVEL: 'debug' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  proc.stdin.write('this is not json\n');
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wasm_fail', arguments: {} } });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'wasm_echo', arguments: { text: 'x' } } });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'wasm_echo', arguments: 'not an object' } });
  send({
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name: 'wasm_echo', arguments: { text: 'p' }, _meta: { progressToken: 'tok' } },
  });
  try {
    // answers to ids 1-5 (the garbage line's -32700 answer has id null)
    await waitFor(
      'five answers',
      () => (out.split('\n').filter((l) => /"id":[0-9]/.test(l)).length >= 5 ? true : undefined),
      15_000,
    );
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const byId = new Map(
      lines
        .map((l) => JSON.parse(l) as { id: number; result?: { isError?: boolean }; error?: { code: number } })
        .map((m) => [m.id, m]),
    );
    expect(byId.get(2)?.result?.isError).toBe(true);
    expect(byId.get(3)?.result?.isError).toBe(false);
    expect(byId.get(4)?.error?.code).toBe(ErrorCode.InvalidParams);
    // progress for the call that sent a progressToken: start, then end, then its answer
    const order = lines
      .map(
        (l) =>
          JSON.parse(l) as { id?: number; method?: string; params?: { progressToken?: string; progress?: number } },
      )
      .filter((m) => m.id === 5 || m.params?.progressToken === 'tok')
      .map((m) => (m.id === 5 ? 'answer' : `progress ${m.params?.progress}`));
    expect(order).toEqual(['progress 0', 'progress 1', 'answer']);
    expect(err).toContain('unreadable message'); // the garbage line was logged on stderr, not stdout
  } finally {
    proc.stdin.end();
    await new Promise((r) => proc.once('exit', r));
  }
  expect(proc.exitCode).toBe(0); // closing stdin is a clean shutdown
});
