// Replicas sharing one Redis (`serve --state`, docs/operations.md), against a real redis-server and
// two real `serve --http` processes: an ask queued on one is answered on the other and its call
// runs once; a rate limit holds across both; a task made on one is read and cancelled on the
// other; a used input-round state is refused on both; and Redis going away fails closed until it
// is back. Two more replicas prove that --max-tasks counts across replicas, and that an ask held by
// a replica killed with SIGKILL leaves every list when its lease lapses. The writer tool writes a
// file when it runs, so "it ran" is a file that exists.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import {
  FS_TOOL,
  ROOT,
  runToolgate,
  startHttp,
  tempDir,
  waitFor,
  type HttpProcess,
  writerManifest,
} from './helpers.js';
import { modernRpc } from './modern-rpc.js';

const TASKS_WASM = join(ROOT, 'pdk-examples/conformance/build/tasks.wasm');
const TOKEN = 'replica-token';
const APPROVAL = 'toolgate/approval';
const ELICIT = { elicitation: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

let dir: Awaited<ReturnType<typeof tempDir>>;
let redis: RedisServer;
let a: HttpProcess;
let b: HttpProcess;
let out: string;
let manifests = '';
let policies = '';
let keyFile = '';

const ran = (name: string): boolean => existsSync(join(out, name));
const write = (name: string) => ({ name: 'writer', arguments: { cmd: `write /out/${name} yes` } });

async function pending(h: HttpProcess): Promise<{ id: string; arguments: { cmd?: string } }[]> {
  const r = await fetch(`${h.url}/v1/approvals`, { headers: auth });
  return ((await r.json()) as { approvals: { id: string; arguments: { cmd?: string } }[] }).approvals;
}
const answer = (h: HttpProcess, id: string): Promise<Response> =>
  fetch(`${h.url}/v1/approvals/${id}`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ outcome: 'allowed-once' }),
  });
const callApi = async (
  h: HttpProcess,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ isError?: boolean; error?: { code: string; message: string } }> =>
  (await (
    await fetch(`${h.url}/v1/tools/${tool}/call`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ arguments: args }),
    })
  ).json()) as never;
const rpc = (h: HttpProcess, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>) =>
  modernRpc(h.url, method, params, {
    capabilities,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(typeof params['taskId'] === 'string' ? { 'mcp-name': params['taskId'] } : {}),
    },
  });
const audits = async (): Promise<string[]> =>
  (
    await Promise.all(
      ['a', 'b'].map((r) => readFile(join(dir.path, `home-${r}`, 'audit.jsonl'), 'utf8').catch(() => '')),
    )
  ).flatMap((t) => t.split('\n').filter((l) => l !== ''));

async function replica(name: string, more: string[] = []): Promise<HttpProcess> {
  const home = join(dir.path, `home-${name}`);
  await mkdir(home, { recursive: true });
  return startHttp(
    [
      '--http',
      '127.0.0.1:0',
      '--manifests',
      manifests,
      '--policies',
      policies,
      '--token',
      TOKEN,
      '--mrtr-key-file',
      keyFile,
      '--state',
      redis.url,
      ...more,
    ],
    {
      TOOLGATE_HOME: home,
      TOOLGATE_ASK_PROGRESS_MS: '100',
    },
  );
}

beforeAll(async () => {
  dir = await tempDir();
  redis = await startRedis();
  out = join(dir.path, 'out');
  manifests = join(dir.path, 'manifests');
  policies = join(dir.path, 'policies');
  await Promise.all([mkdir(out), mkdir(manifests), mkdir(policies)]);
  keyFile = join(dir.path, 'mrtr.key');
  await writeFile(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  await writeFile(
    join(policies, 'set.yaml'),
    [
      'entries:',
      '  - { id: audit, use: audit-log }',
      '  - { id: approvals, use: approvals, with: { channels: [queue] } }',
      '  - { id: ask-writer, use: ask, with: { tools: [writer], reason: "writing needs a yes" } }',
      '  - { id: three, use: rate-limit, with: { capacity: 3, refillPerSecond: 0.001, tools: [limited] } }',
      '',
    ].join('\n'),
  );
  await writeFile(join(manifests, 'writer.yaml'), writerManifest(out));
  await writeFile(
    join(manifests, 'limited.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: limited',
      'version: 1.0.0',
      'description: Lists /out (a call to count).',
      `module: { path: ${FS_TOOL}, entry: fs_tool }`,
      'parameters: { cmd: { type: string, required: true } }',
      'input: { encoding: raw, parameter: cmd }',
      'output: { encoding: text }',
      `capabilities: { allowed_paths: { /out: { host: ${out}, mode: ro } } }`,
      '',
    ].join('\n'),
  );
  await writeFile(
    join(manifests, 'slow_compute.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: slow_compute',
      'version: 1.0.0',
      'description: Sleeps, then answers with its label (a task).',
      `module: { path: ${TASKS_WASM}, entry: slow_compute }`,
      'parameters:',
      '  seconds: { type: number, required: true }',
      '  label: { type: string, required: true }',
      'output: { render: mcp }',
      'capabilities: { memory: { max_pages: 32 }, timeout_ms: 60000, mcp: [elicitation] }',
      'execution: { task: optional }',
      '',
    ].join('\n'),
  );
  [a, b] = await Promise.all([replica('a'), replica('b')]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await redis?.stop();
  await dir?.remove();
});

describe('replicas sharing state in Redis (serve --state)', () => {
  test('an ask queued through replica A is listed and answered on replica B, the call on A runs once, and a second answer on A is 409', async () => {
    const client = await a.connect({ headers: { authorization: `Bearer ${TOKEN}` } });
    const call = client.callTool(write('across'), undefined, { resetTimeoutOnProgress: true, timeout: 20_000 });
    const held = await waitFor('the ask on B', async () =>
      (await pending(b)).find((p) => p.arguments.cmd?.includes('/out/across')),
    );
    expect(ran('across')).toBe(false);
    expect((await answer(b, held.id)).status).toBe(200);
    const res = await call;
    expect(res.isError).toBe(false);
    expect(ran('across')).toBe(true);
    const late = await answer(a, held.id);
    expect(late.status).toBe(409);
    expect((await pending(a)).some((p) => p.id === held.id)).toBe(false);
    const records = (await audits()).filter((l) => l.includes('/out/across'));
    expect(records).toHaveLength(1);
  }, 30_000);

  test('a rate limit of 3 across both replicas lets exactly 3 calls through', async () => {
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await callApi(i % 2 === 0 ? a : b, 'limited', { cmd: 'list /out' }));
    const through = results.filter((r) => r.isError !== true);
    expect(through).toHaveLength(3);
    expect(results.filter((r) => r.error?.code === 'RATE_LIMITED')).toHaveLength(5);
  }, 30_000);

  test('a task created on A is read and cancelled on B, and the cancel reaches A, which stops the run', async () => {
    const created = await rpc(
      a,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 30, label: 'shared-task' } },
      TASKS,
    );
    expect(created.message.result?.['resultType']).toBe('task');
    const taskId = created.message.result?.['taskId'] as string;
    const seen = await waitFor(
      'B to see the task',
      async () => (await rpc(b, 'tasks/get', { taskId }, TASKS)).message.result,
      3000,
    );
    expect(seen['status']).toBe('working');
    expect((await rpc(b, 'tasks/cancel', { taskId }, TASKS)).message.result).toMatchObject({ resultType: 'complete' });
    expect((await rpc(b, 'tasks/get', { taskId }, TASKS)).message.result?.['status']).toBe('cancelled');
    await waitFor(
      'A to have cancelled its run',
      async () =>
        (await rpc(a, 'tasks/get', { taskId }, TASKS)).message.result?.['status'] === 'cancelled' ? true : undefined,
      5000,
    );
    // A's own record of the task (its memory) says cancelled, and it never completes
    await new Promise((r) => setTimeout(r, 300));
    expect((await rpc(a, 'tasks/get', { taskId }, TASKS)).message.result?.['status']).toBe('cancelled');
  }, 30_000);

  test('a request state used on A is refused on B: the replayed state runs nothing', async () => {
    const first = await rpc(a, 'tools/call', write('once'), ELICIT);
    expect(first.message.result?.['resultType']).toBe('input_required');
    const requestState = first.message.result?.['requestState'] as string;
    const retry = { ...write('once'), inputResponses: { [APPROVAL]: { action: 'accept', content: {} } }, requestState };
    expect((await rpc(a, 'tools/call', retry, ELICIT)).message.result?.['isError']).toBe(false);
    expect(ran('once')).toBe(true);
    await rm(join(out, 'once'));
    const replayed = await rpc(b, 'tools/call', retry, ELICIT);
    expect(replayed.message.error?.code).toBe(-32602);
    expect(ran('once')).toBe(false);
  }, 30_000);

  test('Redis going away fails closed (an ask is denied, a rate-limited call refused) within the call, and both replicas recover when it is back', async () => {
    await redis.kill();
    const t0 = performance.now();
    const denied = await callApi(a, 'writer', { cmd: 'write /out/while-down yes' });
    expect(denied.isError).toBe(true);
    expect(denied.error?.code).not.toBe(undefined);
    expect(ran('while-down')).toBe(false);
    const limited = await callApi(b, 'limited', { cmd: 'list /out' });
    expect(limited.error?.code).toBe('RATE_LIMITED');
    expect(limited.error?.message).toMatch(/shared/);
    expect(performance.now() - t0).toBeLessThan(5000);
    // a replayed-state check cannot be made either: the state is refused, nothing runs
    const first = await rpc(b, 'tools/call', write('down-round'), ELICIT);
    expect(first.message.result?.['resultType']).toBe('input_required');
    const retry = {
      ...write('down-round'),
      inputResponses: { [APPROVAL]: { action: 'accept', content: {} } },
      requestState: first.message.result?.['requestState'],
    };
    expect((await rpc(b, 'tools/call', retry, ELICIT)).message.error?.code).toBe(-32602);
    expect(ran('down-round')).toBe(false);
    // both still serve what needs no shared state
    for (const h of [a, b]) expect((await fetch(`${h.url}/healthz`)).status).toBe(200);

    await redis.start();
    await waitFor(
      'A to take asks again',
      async () => {
        const client = await a.connect({ headers: { authorization: `Bearer ${TOKEN}` } });
        const call = client.callTool(write('after'), undefined, { resetTimeoutOnProgress: true, timeout: 20_000 });
        const held = await waitFor(
          'the ask on B',
          async () => (await pending(b)).find((p) => p.arguments.cmd?.includes('/out/after')),
          2000,
        ).catch(() => undefined);
        if (held === undefined) {
          await call.catch(() => undefined);
          return undefined;
        }
        expect((await answer(b, held.id)).status).toBe(200);
        expect((await call).isError).toBe(false);
        return true;
      },
      20_000,
    );
    expect(ran('after')).toBe(true);
    expect(a.proc.exitCode).toBe(null);
    expect(b.proc.exitCode).toBe(null);
  }, 60_000);
});

describe('replicas that count tasks together, and one that dies holding an ask', () => {
  const MAX = 2;
  let c: HttpProcess;
  let d: HttpProcess;
  const slow = (label: string) => ({ name: 'slow_compute', arguments: { seconds: 30, label } });

  beforeAll(async () => {
    await waitFor(
      'Redis to answer the replicas again',
      async () => ((await pending(a).catch(() => undefined)) !== undefined ? true : undefined),
      10_000,
    );
    [c, d] = await Promise.all([
      replica('c', ['--max-tasks', String(MAX)]),
      replica('d', ['--max-tasks', String(MAX)]),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([c?.stop(), d?.stop()]);
  });

  test(`--max-tasks ${MAX} counts one principal's tasks on every replica: of four made at once on two replicas exactly ${MAX} are tasks, the rest get the cap's error`, async () => {
    const made = await Promise.all([c, d, c, d].map((h, i) => rpc(h, 'tools/call', slow(`count-${i}`), TASKS)));
    const tasks = made.filter((m) => m.message.result?.['resultType'] === 'task');
    const refused = made.filter((m) => m.message.error !== undefined);
    expect(tasks).toHaveLength(MAX);
    expect(refused).toHaveLength(4 - MAX);
    for (const r of refused) {
      expect(r.message.error?.code).toBe(-32000);
      expect(r.message.error?.message).toContain(`this client holds ${MAX} (the limit is ${MAX})`);
    }
    // each replica alone holds fewer than the cap, and still refuses: the count is the shared one
    const again = await rpc(
      tasks.length > 0 && made.indexOf(tasks[0]!) % 2 === 0 ? d : c,
      'tools/call',
      slow('count-late'),
      TASKS,
    );
    expect(again.message.error?.message).toContain(`the limit is ${MAX}`);
    for (const t of tasks)
      await rpc(made.indexOf(t) % 2 === 0 ? c : d, 'tasks/cancel', { taskId: t.message.result?.['taskId'] }, TASKS);
  }, 30_000);

  test('with Redis down a new task is refused on either replica with the shared-state error, and nothing is counted', async () => {
    await redis.kill();
    try {
      for (const h of [c, d]) {
        const r = await rpc(h, 'tools/call', slow('while-down'), TASKS);
        expect(r.message.error?.code).toBe(-32000);
        expect(r.message.error?.message).toMatch(/shared task state \(Redis\) is unavailable/);
      }
    } finally {
      await redis.start();
    }
    // A restarted Redis holds no count; a replica still counts its own finished tasks until they
    // expire, so the one that took both of the first test's tasks may stay full: either may answer.
    let turn = 0;
    await waitFor(
      'a replica to make tasks again',
      async () => {
        const r = await rpc(
          turn++ % 2 === 0 ? c : d,
          'tools/call',
          { name: 'slow_compute', arguments: { seconds: 0, label: 'after' } },
          TASKS,
        );
        return r.message.result?.['resultType'] === 'task' ? true : undefined;
      },
      20_000,
    );
  }, 60_000);

  test('an ask held by a replica killed with SIGKILL stays listed while its lease is renewed, leaves every list once it lapses, and a late answer is 409', async () => {
    const client = await c.connect({ headers: { authorization: `Bearer ${TOKEN}` } });
    // never awaited: a client whose server was killed may keep waiting for it
    void client
      .callTool(write('orphan'), undefined, { resetTimeoutOnProgress: true, timeout: 60_000 })
      .catch(() => undefined);
    const held = await waitFor(
      'the ask on D',
      async () => (await pending(d)).find((p) => p.arguments.cmd?.includes('/out/orphan')),
      10_000,
    );
    // longer than one lease: C's heartbeat keeps it listed
    await new Promise((r) => setTimeout(r, 6500));
    expect((await pending(d)).some((p) => p.id === held.id)).toBe(true);
    c.proc.kill('SIGKILL');
    const t0 = performance.now();
    await waitFor(
      'D to drop the orphaned ask',
      async () => ((await pending(d)).some((p) => p.id === held.id) ? undefined : true),
      15_000,
    );
    expect(performance.now() - t0).toBeLessThan(9000);
    const late = await answer(d, held.id);
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { message: string } }).error.message).toContain('lease lapsed');
    expect(ran('orphan')).toBe(false);
  }, 60_000);
});

describe('serve --state at start', () => {
  test('a malformed --state URL exits 2 naming it', async () => {
    const r = await runToolgate(['serve', '--http', '127.0.0.1:0', '--state', 'http://127.0.0.1:6379']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--state http://127.0.0.1:6379');
  });

  test('an unreachable --state URL (TOOLGATE_STATE) exits 2 naming it', async () => {
    const r = await runToolgate(['serve', '--http', '127.0.0.1:0'], { TOOLGATE_STATE: 'redis://127.0.0.1:1/3' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--state redis://127.0.0.1:1/3: cannot reach Redis');
  });
});
