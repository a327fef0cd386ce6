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
import { directRequests } from '../../host/src/server/stdio.js';
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
