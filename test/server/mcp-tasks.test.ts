// The MCP Tasks extension on 2026-07-28 requests (docs/mcp.md, "Tasks"), against the shipped bundle
// with raw JSON-RPC POSTs: who may see a task, how cancelling and deadlines end one, what
// tasks/update may answer, and the bounds on how long and how many tasks are kept.
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  cpuShare,
  FIXTURE_MANIFESTS,
  ROOT,
  rawRequest,
  startHttp,
  tempDir,
  waitFor,
  type HttpProcess,
} from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const TASKS_WASM = join(ROOT, 'pdk-examples/conformance/build/tasks.wasm');
const SPIN_WASM = join(FIXTURE_MANIFESTS, '../build/server_spin.wasm');
const TTL_MS = 1500;
const MAX_TASKS = 3;

type Json = Record<string, unknown>;

function manifest(name: string, module: string, entry: string, extra: string): string {
  return `apiVersion: toolgate/v1\nname: ${name}\nversion: 1.0.0\ndescription: Test tool for tasks.\nmodule: { path: ${module}, entry: ${entry} }\n${extra}`;
}

const TOOLS: Record<string, string> = {
  // spins until cancelled (or its 60 s deadline)
  spin_task: manifest(
    'spin_task',
    SPIN_WASM,
    'spin',
    'capabilities: { memory: { max_pages: 16 }, timeout_ms: 60000 }\nexecution: { task: optional }\n',
  ),
  // spins past its 300 ms deadline
  spin_deadline: manifest(
    'spin_deadline',
    SPIN_WASM,
    'spin',
    'capabilities: { memory: { max_pages: 16 }, timeout_ms: 300 }\nexecution: { task: optional }\n',
  ),
  slow_compute: manifest(
    'slow_compute',
    TASKS_WASM,
    'slow_compute',
    'parameters:\n  seconds: { type: number, required: true }\n  label: { type: string, required: true }\noutput: { render: mcp }\n' +
      'capabilities: { memory: { max_pages: 32 }, timeout_ms: 60000, mcp: [elicitation] }\nexecution: { task: optional }\n',
  ),
  multi_input: manifest(
    'multi_input',
    TASKS_WASM,
    'multi_input',
    'output: { render: mcp }\ncapabilities: { memory: { max_pages: 32 }, timeout_ms: 60000, mcp: [elicitation] }\nexecution: { task: optional }\n',
  ),
};

let seq = 0;

/** One 2026-07-28 request, as the conformance suite sends it (headers mirror the body). */
async function rpc(
  h: HttpProcess,
  method: string,
  params: Json,
  o: { token?: string; tasks?: boolean; agent?: Agent; from?: string } = {},
): Promise<{ result?: Json; error?: { code: number; message: string; data?: Json } }> {
  const caps: Json = { elicitation: {}, ...(o.tasks !== false ? { extensions: { [TASKS]: {} } } : {}) };
  const body = {
    jsonrpc: '2.0',
    id: ++seq,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': caps,
      },
    },
  };
  const name =
    typeof params['name'] === 'string'
      ? params['name']
      : typeof params['taskId'] === 'string'
        ? params['taskId']
        : undefined;
  const reply = await rawRequest(h.url, {
    method: 'POST',
    path: '/mcp',
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...(o.token !== undefined ? { authorization: `Bearer ${o.token}` } : {}),
    },
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.from !== undefined ? { from: o.from } : {}),
  });
  const text = reply.body.trimStart().startsWith('{')
    ? reply.body
    : (
        reply.body
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .pop() ?? ''
      ).slice(5);
  return JSON.parse(text) as { result?: Json; error?: { code: number; message: string } };
}

async function createTask(h: HttpProcess, name: string, args: Json, token = 'alice'): Promise<string> {
  const r = await rpc(h, 'tools/call', { name, arguments: args }, { token });
  expect(r.result?.['resultType'], JSON.stringify(r)).toBe('task');
  return r.result?.['taskId'] as string;
}

const metrics = async (h: HttpProcess): Promise<string> => (await rawRequest(h.url, { path: '/metrics' })).body;

const get = (h: HttpProcess, taskId: string, token = 'alice') => rpc(h, 'tasks/get', { taskId }, { token });

async function untilStatus(h: HttpProcess, taskId: string, statuses: string[], token = 'alice'): Promise<Json> {
  return waitFor(
    `task ${taskId} to be ${statuses.join('|')}`,
    async () => {
      const r = await get(h, taskId, token);
      return statuses.includes(r.result?.['status'] as string) ? r.result : undefined;
    },
    15_000,
  );
}

describe('MCP tasks (2026-07-28, the io.modelcontextprotocol/tasks extension)', () => {
  let h: HttpProcess;
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir();
    await mkdir(join(dir.path, 'm'));
    for (const [name, text] of Object.entries(TOOLS)) await writeFile(join(dir.path, 'm', `${name}.yaml`), text);
    h = await startHttp([
      '--http',
      '127.0.0.1:0',
      '--manifests',
      join(dir.path, 'm'),
      '--policies',
      'none',
      '--task-ttl',
      String(TTL_MS),
      '--max-tasks',
      String(MAX_TASKS),
    ]);
  }, 30_000);
  afterAll(async () => {
    await h?.stop();
    await dir?.remove();
  });

  test('a task cancelled while its call spins answers the ack at once and its instance is torn down within 1 s', async () => {
    const taskId = await createTask(h, 'spin_task', {}, 'cancel');
    await waitFor('the spin to burn a core', async () =>
      (await cpuShare(h.proc.pid ?? 0, 200)) > 0.2 ? true : undefined,
    );
    const t0 = performance.now();
    const ack = await rpc(h, 'tasks/cancel', { taskId }, { token: 'cancel' });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    expect(Object.keys(ack.result ?? {}).sort()).toEqual(['_meta', 'resultType']);
    expect((await get(h, taskId, 'cancel')).result?.['status']).toBe('cancelled');
    // the sandbox answers the aborted call once it has terminated the instance (architecture.md §4)
    const aborted = (text: string) =>
      text
        .split('\n')
        .some(
          (l) =>
            l.includes('calls_total{') &&
            l.includes('outcome="ABORTED"') &&
            l.includes('tool="spin_task"') &&
            l.endsWith(' 1'),
        );
    await waitFor('the call to end ABORTED', async () => (aborted(await metrics(h)) ? true : undefined), 3_000);
    expect(performance.now() - t0).toBeLessThan(1000);
    // and nothing spins any more
    await waitFor(
      'the spinning instance to stop',
      async () => ((await cpuShare(h.proc.pid ?? 0, 150)) < 0.1 ? true : undefined),
      5_000,
    );
    // cancelling again is the same ack (terminal tasks are idempotent)
    expect((await rpc(h, 'tasks/cancel', { taskId }, { token: 'cancel' })).result).toMatchObject({
      resultType: 'complete',
    });
  }, 30_000);

  test('a task that outlives its deadline ends completed with an isError result whose code is TIMEOUT', async () => {
    const taskId = await createTask(h, 'spin_deadline', {}, 'deadline');
    const t0 = performance.now();
    const done = await untilStatus(h, taskId, ['completed', 'failed', 'cancelled'], 'deadline');
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(done['status']).toBe('completed');
    const result = done['result'] as Json;
    expect(result['isError']).toBe(true);
    expect((result['_meta'] as Json)['toolgate/error']).toMatchObject({ code: 'TIMEOUT' });
    expect(done).not.toHaveProperty('requestState');
  }, 30_000);

  test("another principal's tasks/get, tasks/update and tasks/cancel are -32602, as for an unknown task, and leak nothing", async () => {
    const taskId = await createTask(h, 'slow_compute', { seconds: 5, label: 'mine' }, 'owner');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const foreign = await rpc(
        h,
        method,
        { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) },
        { token: 'intruder' },
      );
      const unknown = await rpc(
        h,
        method,
        { taskId: 'no-such-task', ...(method === 'tasks/update' ? { inputResponses: {} } : {}) },
        { token: 'intruder' },
      );
      expect(foreign.error?.code, method).toBe(-32602);
      expect(unknown.error?.code, method).toBe(-32602);
      expect(foreign.error?.message.replace(taskId, 'ID')).toBe(unknown.error?.message.replace('no-such-task', 'ID'));
    }
    // the owner's task was not cancelled by the intruder
    expect((await get(h, taskId, 'owner')).result?.['status']).toBe('working');
    await rpc(h, 'tasks/cancel', { taskId }, { token: 'owner' });
  }, 30_000);

  test("with no token, a task is bound to its creator's address: another client's tasks/get, tasks/update and tasks/cancel are -32602 as for an unknown id; the creator reads and cancels it from any connection", async () => {
    // the creator on 127.0.0.1, the other client on 127.0.0.2 (both loopback); no token either
    const created = await rpc(h, 'tools/call', { name: 'spin_task', arguments: {} }, { from: '127.0.0.1' });
    expect(created.result?.['resultType'], JSON.stringify(created)).toBe('task');
    const taskId = created.result?.['taskId'] as string;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const extra = method === 'tasks/update' ? { inputResponses: {} } : {};
      const foreign = await rpc(h, method, { taskId, ...extra }, { from: '127.0.0.2' });
      const unknown = await rpc(h, method, { taskId: 'no-such-task', ...extra }, { from: '127.0.0.2' });
      expect(foreign.error?.code, method).toBe(-32602);
      expect(foreign.error?.message.replace(taskId, 'ID')).toBe(unknown.error?.message.replace('no-such-task', 'ID'));
    }
    // the creator, on a new connection each time (a client's pool may open one for any request)
    const fresh = () => new Agent({ keepAlive: false });
    expect((await rpc(h, 'tasks/get', { taskId }, { from: '127.0.0.1', agent: fresh() })).result?.['status']).toBe(
      'working',
    );
    expect((await rpc(h, 'tasks/cancel', { taskId }, { from: '127.0.0.1', agent: fresh() })).result).toMatchObject({
      resultType: 'complete',
    });
    expect((await rpc(h, 'tasks/get', { taskId }, { from: '127.0.0.1', agent: fresh() })).result?.['status']).toBe(
      'cancelled',
    );
  }, 30_000);

  test('a token names the principal as before: its task is read and cancelled from any connection', async () => {
    const first = new Agent({ keepAlive: false });
    const taskId = (
      await rpc(h, 'tools/call', { name: 'spin_task', arguments: {} }, { token: 'roaming', agent: first })
    ).result?.['taskId'] as string;
    expect(typeof taskId).toBe('string');
    const later = new Agent({ keepAlive: false });
    expect((await rpc(h, 'tasks/get', { taskId }, { token: 'roaming', agent: later })).result?.['status']).toBe(
      'working',
    );
    expect((await rpc(h, 'tasks/cancel', { taskId }, { token: 'roaming', agent: later })).result).toMatchObject({
      resultType: 'complete',
    });
  }, 30_000);

  test('task methods from a request that does not declare the extension are -32021 naming it', async () => {
    const r = await rpc(h, 'tasks/get', { taskId: 'x' }, { token: 'alice', tasks: false });
    expect(r.error?.code).toBe(-32021);
    expect(r.error?.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  });

  test('tasks/update takes only answers to its own open questions; a partial answer leaves the rest pending; all answered, the call completes', async () => {
    const taskId = await createTask(h, 'multi_input', {}, 'update');
    const waiting = await untilStatus(h, taskId, ['input_required'], 'update');
    expect(Object.keys(waiting['inputRequests'] as Json).sort()).toEqual(['first', 'second']);
    const ack = await rpc(
      h,
      'tasks/update',
      {
        taskId,
        inputResponses: {
          first: { action: 'accept', content: { name: 'one' } },
          stranger: { action: 'accept', content: { name: 'x' } },
          second: { wrong: 'shape' },
        },
      },
      { token: 'update' },
    );
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const still = (await get(h, taskId, 'update')).result ?? {};
    expect(still['status']).toBe('input_required');
    expect(Object.keys(still['inputRequests'] as Json)).toEqual(['second']);
    await rpc(
      h,
      'tasks/update',
      { taskId, inputResponses: { second: { action: 'accept', content: { name: 'two' } } } },
      { token: 'update' },
    );
    const done = await untilStatus(h, taskId, ['completed', 'failed', 'cancelled'], 'update');
    expect(done['status']).toBe('completed');
    expect(JSON.stringify(done['result'])).toContain('first: one, second: two');
  }, 30_000);

  test('a finished task is kept for its ttl, then dropped (tasks/get is -32602)', async () => {
    const taskId = await createTask(h, 'slow_compute', { seconds: 0, label: 'ttl' }, 'ttl');
    const done = await untilStatus(h, taskId, ['completed'], 'ttl');
    expect(done['ttlMs']).toBe(TTL_MS);
    const endedAt = Date.parse(done['lastUpdatedAt'] as string);
    await new Promise((r) => setTimeout(r, Math.max(0, endedAt + TTL_MS / 2 - Date.now())));
    expect((await get(h, taskId, 'ttl')).result?.['status']).toBe('completed');
    await new Promise((r) => setTimeout(r, Math.max(0, endedAt + TTL_MS + 100 - Date.now())));
    expect((await get(h, taskId, 'ttl')).error?.code).toBe(-32602);
  }, 30_000);

  test(`a principal holds at most ${MAX_TASKS} tasks: the next is refused with the limit named, others are unaffected, and room returns when tasks expire`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_TASKS; i++)
      ids.push(await createTask(h, 'slow_compute', { seconds: 0, label: `cap${i}` }, 'capped'));
    const refused = await rpc(
      h,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0, label: 'one too many' } },
      { token: 'capped' },
    );
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toContain(`the limit is ${MAX_TASKS}`);
    // another principal still gets one
    await createTask(h, 'slow_compute', { seconds: 0, label: 'other' }, 'uncapped');
    for (const id of ids) await untilStatus(h, id, ['completed'], 'capped');
    await new Promise((r) => setTimeout(r, TTL_MS + 200));
    await createTask(h, 'slow_compute', { seconds: 0, label: 'after expiry' }, 'capped');
  }, 30_000);

  test('without the extension an optional-task tool answers in the request, as before tasks', async () => {
    const r = await rpc(
      h,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0, label: 'sync' } },
      { token: 'alice', tasks: false },
    );
    expect(r.result?.['resultType']).toBe('complete');
    expect(JSON.stringify(r.result?.['content'])).toContain('computed sync');
  });
});
