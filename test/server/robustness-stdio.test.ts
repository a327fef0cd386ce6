// The stdio server as a raw client sees it: every line answered, in order, once, with one wording,
// and nothing but JSON-RPC on stdout, through shutdown.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FIXTURE_MANIFESTS, ROOT, tempDir, toolgateEntry, waitFor } from './helpers.js';

interface Raw {
  proc: ChildProcessWithoutNullStreams;
  send(m: unknown): void;
  line(text: string): void;
  /** Parsed stdout lines so far (throws if one is not JSON). */
  messages(): Record<string, unknown>[];
  answer(id: number): Promise<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<number | null>;
}

const running: Raw[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGKILL');
    await r.exited;
  }
});

async function startRaw(extra: string[] = []): Promise<Raw> {
  const entry = await toolgateEntry();
  const proc = spawn(process.execPath, [entry, 'serve', '--stdio', '--manifests', FIXTURE_MANIFESTS, ...extra], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TOOLGATE_HOME: join(tmpdir(), 'toolgate-server-test-home'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const messages = () =>
    out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const raw: Raw = {
    proc,
    send: (m) => proc.stdin.write(`${JSON.stringify(m)}\n`),
    line: (text) => proc.stdin.write(`${text}\n`),
    messages,
    answer: (id) => waitFor(`the answer to ${id}`, () => messages().find((m) => m.id === id), 20_000),
    stderr: () => err,
    exited,
  };
  running.push(raw);
  return raw;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number, name: string, args: unknown = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

test('an unparsable stdio line is answered -32700 (id null), and JSON that is not JSON-RPC -32600', async () => {
  const s = await startRaw();
  s.send(initialize);
  await s.answer(1);
  s.line('this is not json');
  s.line('{"jsonrpc":"2.0","id":7,"method":42}');
  await waitFor('two error answers', () =>
    s.messages().filter((m) => m.error !== undefined).length >= 2 ? true : undefined,
  );
  const errors = s.messages().filter((m) => m.error !== undefined);
  expect(errors[0]).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32700, message: 'Parse error: the line is not valid JSON' },
  });
  expect(errors[1]).toMatchObject({ id: 7, error: { code: -32600 } });
});

test('one clean error message per failure: no doubled "MCP error -32602:" and no raw zod dump', async () => {
  const s = await startRaw();
  s.send(initialize);
  s.send(initialized);
  s.send(call(2, 'no_such_tool'));
  s.send(call(3, 'wasm_echo', 'x'));
  s.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method' });
  const unknown = (await s.answer(2)).error as { code: number; message: string };
  const badArgs = (await s.answer(3)).error as { code: number; message: string };
  const noMethod = (await s.answer(4)).error as { code: number; message: string };
  expect(unknown).toEqual({ code: -32602, message: 'Invalid params: Unknown tool: no_such_tool' });
  expect(badArgs).toEqual({ code: -32602, message: 'Invalid params: tools/call: params.arguments must be an object' });
  expect(noMethod.code).toBe(-32601);
  for (const e of [unknown, badArgs, noMethod]) {
    expect(e.message).not.toMatch(/MCP error/);
    expect(e.message).not.toContain('\n');
  }
});

test('requests piped behind initialize are processed after its answer, in the order sent', async () => {
  const s = await startRaw();
  // one write: initialize, a call before the initialize answer, the initialized notification, a list
  s.proc.stdin.write(
    [initialize, call(2, 'wasm_echo', { text: 'early' }), initialized, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\n',
  );
  await s.answer(2);
  await s.answer(3);
  const ids = s
    .messages()
    .map((m) => m.id)
    .filter((id) => id !== undefined);
  expect(ids[0]).toBe(1);
  expect(s.messages().find((m) => m.id === 2)).toMatchObject({
    result: { isError: false, structuredContent: { text: 'early' } },
  });
});

test('closing stdin during a call still writes its result before the process exits', async () => {
  const s = await startRaw();
  s.send(initialize);
  s.send(initialized);
  await s.answer(1);
  s.send(call(2, 'spin_short'));
  s.send(call(3, 'wasm_echo', { text: 'last' }));
  s.proc.stdin.end();
  expect(await s.exited).toBe(0);
  expect(s.messages().find((m) => m.id === 2)).toMatchObject({ result: { isError: true } });
  expect(s.messages().find((m) => m.id === 3)).toMatchObject({
    result: { isError: false, structuredContent: { text: 'last' } },
  });
});

test('SIGTERM answers a running call "server shutting down" and the process exits within the shutdown timeout plus 1 s', async () => {
  const s = await startRaw(['--shutdown-timeout', '1000']);
  s.send(initialize);
  s.send(initialized);
  await s.answer(1);
  s.send(call(2, 'spin'));
  await waitFor('the spin to start', () => (s.stderr().includes('spin') || s.messages().length > 0 ? true : undefined));
  await new Promise((r) => setTimeout(r, 300)); // let the call reach its instance (not a bound: any time works)
  const t0 = performance.now();
  s.proc.kill('SIGTERM');
  const code = await s.exited;
  const took = performance.now() - t0;
  expect(code).toBe(0);
  const answer = s.messages().find((m) => m.id === 2) as { result: { isError: boolean; content: { text: string }[] } };
  expect(answer.result.isError).toBe(true);
  expect(answer.result.content[0]?.text).toMatch(/^server shutting down/);
  expect(took).toBeLessThan(1000 + 1000);
});

test('stdout carries only JSON-RPC in stdio mode: a policy module that console.logs writes to stderr', async () => {
  const dir = await tempDir();
  try {
    await mkdir(join(dir.path, 'chatty'));
    await writeFile(
      join(dir.path, 'chatty/chatty.mjs'),
      [
        "export const name = 'chatty';",
        'console.log("chatty: loaded");',
        'export function apply(ctx) {',
        "  ctx.on('tools/pre-execute', ctx.entryId, (exec, next) => { console.log('chatty: call', exec.name); console.info('chatty: info'); process.stdout.write('chatty: raw write\\n'); return next(); });",
        '}',
      ].join('\n'),
    );
    await writeFile(join(dir.path, 'chatty/set.yaml'), 'entries:\n  - { id: chatty, use: ./chatty.mjs }\n');
    const s = await startRaw(['--policies', join(dir.path, 'chatty')]);
    s.send(initialize);
    s.send(initialized);
    s.send(call(2, 'wasm_echo', { text: 'hi' }));
    await s.answer(2);
    expect(s.messages().find((m) => m.id === 2)).toMatchObject({ result: { isError: false } }); // every stdout line parsed as JSON
    expect(s.stderr()).toContain('chatty: loaded');
    expect(s.stderr()).toContain('chatty: call wasm_echo');
    expect(s.stderr()).toContain('chatty: info');
    expect(s.stderr()).toContain('chatty: raw write');
  } finally {
    await dir.remove();
  }
});
