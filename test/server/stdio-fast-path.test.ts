// The stdio transport's shortcut for plain requests (issue 15 item 2): a request whose shape it can
// prove goes straight to the SDK's request handling, past three zod parses per message. The
// shortcut must never accept what the SDK's own schema refuses, and what it skips must not change
// a single answer.
import { PassThrough } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRuntime, type Runtime } from '../../host/src/cli/index.js';
import {
  createMcpServer,
  serveStdio,
  SessionApprovals,
  SidecarCore,
  type StdioSession,
} from '../../host/src/server/index.js';
import { isPlainRequest } from '../../host/src/server/rpc-shape.js';
import { directToolCalls } from '../../host/src/server/direct-call.js';
import { ClientLinks } from '../../host/src/server/response-gone.js';
import { directRequests } from '../../host/src/server/stdio.js';
import { defineTool } from '../../host/src/tool/index.js';
import { LineTransport } from '../../host/src/server/stdio-transport.js';
import { ROOT, waitFor } from './helpers.js';

const big = 2 ** 53;
/** Each is a parsed line; the comment says why the shortcut must leave it to the SDK, if it must. */
const SHAPES: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
  { jsonrpc: '2.0', id: 'abc', method: 'ping' },
  { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: -7, method: 'x', params: { _meta: { progressToken: 'p1' } } },
  { jsonrpc: '2.0', id: 2, method: 'x', params: { _meta: { progressToken: 3, other: [1] } } },
  { jsonrpc: '2.0', id: 1.5, method: 'x' }, // an id that is not an integer
  { jsonrpc: '2.0', id: big, method: 'x' }, // beyond a safe integer
  { jsonrpc: '2.0', id: null, method: 'x' },
  { jsonrpc: '2.0', id: true, method: 'x' },
  { jsonrpc: '2.0', method: 'x' }, // a notification
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: true }, // the SDK's request schema is strict
  { jsonrpc: '2.0', id: 1, method: 'x', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1, method: 'x', params: 'p' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: null } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: [] } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: null } } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 3 } } } },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"x","__proto__":{"polluted":1}}'),
  { jsonrpc: '2.0', id: 1, result: {} }, // a response
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } },
  [{ jsonrpc: '2.0', id: 1, method: 'x' }], // a batch
  null,
  'text',
  42,
];

test('the plain-request shortcut accepts nothing the SDK request schema refuses, and does accept the common shapes', () => {
  const taken: unknown[] = [];
  for (const shape of SHAPES) {
    if (!isPlainRequest(shape)) continue;
    taken.push(shape);
    expect(JSONRPCRequestSchema.safeParse(shape).success, JSON.stringify(shape)).toBe(true);
  }
  // the first five are what clients send on every call: the shortcut must actually be taken for them
  expect(taken).toEqual(SHAPES.slice(0, 5));
});

function transportRig() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output);
  const viaSdk: unknown[] = [];
  const direct: unknown[] = [];
  transport.onmessage = (m) => void viaSdk.push(m);
  transport.onrequest = (m) => void direct.push(m);
  const written: Record<string, unknown>[] = [];
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) written.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { input, transport, viaSdk, direct, written };
}

test('plain requests skip the SDK classifier; notifications, responses and unusual requests still go through it; non-JSON-RPC is still -32600', async () => {
  const rig = transportRig();
  await rig.transport.start();
  const plain = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } };
  const related = {
    jsonrpc: '2.0',
    id: 2,
    method: 'ping',
    params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
  };
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const response = { jsonrpc: '2.0', id: 9, result: {} };
  const bad = { jsonrpc: '2.0', id: 3, method: 'x', extra: 1 };
  rig.input.write(`${[plain, related, note, response, bad].map((m) => JSON.stringify(m)).join('\n')}\n`);
  await waitFor('the invalid request answered', () => (rig.written.length === 1 ? true : undefined));
  expect(rig.direct).toEqual([plain]);
  expect(rig.viaSdk).toEqual([related, note, response]);
  expect(rig.written[0]).toMatchObject({ id: 3, error: { code: -32600 } });
  await rig.transport.close();
});

test('requests behind an unanswered initialize still wait for its answer on the shortcut', async () => {
  const rig = transportRig();
  await rig.transport.start();
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  rig.input.write(`${JSON.stringify(init)}\n${JSON.stringify(call)}\n`);
  await waitFor('initialize delivered', () => (rig.direct.length === 1 ? true : undefined));
  expect(rig.direct).toEqual([init]); // the call waits for initialize's answer
  await rig.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  expect(rig.direct).toEqual([init, call]);
  await rig.transport.close();
});

let runtime: Runtime | undefined;
let session: StdioSession | undefined;
afterEach(async () => {
  await session?.close();
  await runtime?.dispose();
  session = undefined;
  runtime = undefined;
});

test('over the stdio server, calls through the shortcut answer as before: results, progress on a token, errors, unknown tools', async () => {
  const io = {
    stdout: () => {},
    stderr: () => {},
    stdin: new PassThrough(),
    isTTY: false,
    env: { TOOLGATE_LOG_LEVEL: 'silent' },
    cwd: ROOT,
  };
  const approvals = new SessionApprovals();
  runtime = await createRuntime({ io, manifests: [], approval: approvals });
  const core = new SidecarCore({ runtime, approvals });
  // the SDK pinned here still has the entry the shortcut hands requests to (an upgrade that renamed
  // it would silently send every request the slow way again)
  expect(directRequests(createMcpServer(core))).toBeTypeOf('function');
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const seen: Record<string, unknown>[] = [];
  let rest = '';
  stdout.on('data', (chunk: Buffer) => {
    rest += chunk.toString('utf8');
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) seen.push(JSON.parse(line) as Record<string, unknown>);
  });
  session = await serveStdio(core, stdin, stdout);
  const send = (m: unknown) => stdin.write(`${JSON.stringify(m)}\n`);
  const answer = (id: number) => waitFor(`answer ${id}`, () => seen.find((m) => m['id'] === id && !('method' in m)));
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  expect(await answer(1)).toMatchObject({ result: { serverInfo: { name: 'toolgate' } } });

  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'plain' } } });
  expect(await answer(2)).toMatchObject({ result: { isError: false, structuredContent: { text: 'plain' } } });

  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'tok' }, _meta: { progressToken: 'p3' } },
  });
  expect(await answer(3)).toMatchObject({ result: { isError: false, structuredContent: { text: 'tok' } } });
  const progress = seen
    .filter((m) => m['method'] === 'notifications/progress')
    .map((m) => m['params'] as { progressToken: unknown; progress: number });
  expect(progress.map((p) => [p.progressToken, p.progress])).toEqual([
    ['p3', 0],
    ['p3', 1],
  ]);

  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { nope: 1 } } });
  expect(await answer(4)).toMatchObject({
    result: { isError: true, _meta: { 'toolgate/error': { code: 'INVALID_ARGS' } } },
  });

  send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
  expect(await answer(5)).toMatchObject({
    error: { code: -32602, message: 'Invalid params: Unknown tool: no_such_tool' },
  });

  send({ jsonrpc: '2.0', id: 6, method: 'no/such/method' });
  expect(await answer(6)).toMatchObject({ error: { code: -32601 } });

  send({ jsonrpc: '2.0', id: 7, method: 'ping' });
  expect(await answer(7)).toMatchObject({ result: {} });
});

/** A runtime with one native tool that waits until its call is aborted, recording why. */
async function waitingRuntime(): Promise<{ core: SidecarCore; started: boolean[]; reasons: unknown[] }> {
  const io = {
    stdout: () => {},
    stderr: () => {},
    stdin: new PassThrough(),
    isTTY: false,
    env: { TOOLGATE_LOG_LEVEL: 'silent' },
    cwd: ROOT,
  };
  const approvals = new SessionApprovals();
  runtime = await createRuntime({ io, manifests: [], approval: approvals });
  const started: boolean[] = [];
  const reasons: unknown[] = [];
  await runtime.tools.register(
    defineTool({
      name: 'wait_abort',
      description: 'Waits until its call is aborted.',
      execute: (_args, exec) =>
        new Promise((_resolve, reject) => {
          started.push(true);
          exec.signal.addEventListener('abort', () => {
            reasons.push(exec.signal.reason);
            reject(exec.signal.reason);
          });
        }),
    }),
  );
  return { core: new SidecarCore({ runtime, approvals }), started, reasons };
}

test('a plain tools/call is answered by the session itself, past the SDK request path; other requests and task-augmented calls take the SDK path', async () => {
  const { core } = await waitingRuntime();
  const links = new ClientLinks();
  const server = createMcpServer(core, links);
  const rig = transportRig();
  await server.connect(rig.transport);
  const viaSdk: unknown[] = [];
  const direct = directToolCalls(server, rig.transport, links, (m) => void viaSdk.push(m));
  expect(direct).toBeTypeOf('function');
  const take = direct as NonNullable<typeof direct>;
  take({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'd' } } });
  await waitFor('the direct answer', () => (rig.written.length === 1 ? true : undefined));
  expect(rig.written[0]).toMatchObject({ id: 1, result: { isError: false, structuredContent: { text: 'd' } } });
  const ping = { jsonrpc: '2.0' as const, id: 2, method: 'ping' };
  const task = { jsonrpc: '2.0' as const, id: 3, method: 'tools/call', params: { name: 'echo', task: { ttl: 1000 } } };
  take(ping);
  take(task);
  expect(viaSdk).toEqual([ping, task]);
  // the same errors a client reads on the SDK's way: an unknown tool is InvalidParams, a malformed
  // call names the field, and the SDK's "MCP error CODE: " prefix is stripped as withCleanErrors does
  // (the direct path writes with the transport's write, which that wrapper does not see)
  take({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool' } });
  take({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 7 } });
  await waitFor('the error answers', () => (rig.written.length === 3 ? true : undefined));
  expect(rig.written.slice(1)).toEqual([
    {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'Invalid params: Unknown tool: no_such_tool' },
    },
    {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: 'Invalid params: tools/call: params.name must be a string' },
    },
  ]);
  await server.close();
});

test('notifications/cancelled for a call on the direct path aborts it as the client gone, answers nothing, and leaves no entry in the SDK table of running requests', async () => {
  const { core, started, reasons } = await waitingRuntime();
  const links = new ClientLinks();
  const server = createMcpServer(core, links);
  const rig = transportRig();
  await server.connect(rig.transport);
  const sdk = directRequests(server);
  const direct = sdk && directToolCalls(server, rig.transport, links, sdk);
  expect(direct).toBeTypeOf('function');
  rig.transport.onrequest = direct as NonNullable<typeof direct>;
  const running = (server as unknown as { _requestHandlerAbortControllers: Map<unknown, unknown> })
    ._requestHandlerAbortControllers;
  const send = (m: unknown) => rig.input.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait_abort', arguments: {} } });
  await waitFor('the tool to run', () => (started.length === 1 ? true : undefined));
  expect([...running.keys()]).toEqual([2]);
  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'stop' } });
  await waitFor('the call to be aborted', () => (reasons.length === 1 ? true : undefined));
  expect((reasons[0] as { code?: unknown }).code).toBe('CLIENT_GONE');
  await waitFor('the call to end', () => (core.calls.inFlight === 0 ? true : undefined));
  // the next request is answered, and the cancelled one never is
  send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  await waitFor('the ping answer', () => (rig.written.some((m) => m['id'] === 3) ? true : undefined));
  expect(rig.written.filter((m) => m['id'] === 2)).toEqual([]);
  await waitFor('the table to empty', () => (running.size === 0 ? true : undefined));
  await server.close();
});
