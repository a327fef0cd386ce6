// A 2026-07-28 task made over stdio belongs to that stdio connection: two `serve --stdio` processes
// sharing one Redis (`--state`, a real redis-server) are two clients, so the second cannot read or
// cancel the first's task by its id, though the view of it is in the shared store
// (docs/decisions.md, "Tasks of a client with no token"). The shipped bundle, raw JSON lines.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { ROOT, tempDir, toolgateEntry, waitFor } from './helpers.js';
import { envelope } from './modern-rpc.js';

const SPIN_WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
type Json = Record<string, unknown>;

let dir: Awaited<ReturnType<typeof tempDir>>;
let redis: RedisServer;
const procs: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  dir = await tempDir();
  await mkdir(join(dir.path, 'm'));
  await writeFile(
    join(dir.path, 'm', 'spin_task.yaml'),
    `apiVersion: toolgate/v1\nname: spin_task\nversion: 1.0.0\ndescription: Spins until cancelled.\nmodule: { path: ${SPIN_WASM}, entry: spin }\ncapabilities: { memory: { max_pages: 16 }, timeout_ms: 60000 }\nexecution: { task: optional }\n`,
  );
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await redis?.stop();
  await dir?.remove();
});

/** A `serve --stdio --state` process and a way to ask it one request at a time. */
async function stdioServer(): Promise<(id: number, method: string, params: Json) => Promise<Json>> {
  const proc = spawn(
    process.execPath,
    [
      await toolgateEntry(),
      'serve',
      '--stdio',
      '--manifests',
      join(dir.path, 'm'),
      '--policies',
      'none',
      '--state',
      redis.url,
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir.path, TOOLGATE_HOME: join(dir.path, `home-${procs.length}`) },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  procs.push(proc);
  const answers = new Map<number, Json>();
  let buf = '';
  proc.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, i)) as Json;
      buf = buf.slice(i + 1);
      if (typeof msg['id'] === 'number') answers.set(msg['id'], msg);
    }
  });
  return async (id, method, params) => {
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(TASKS) } })}\n`,
    );
    return waitFor(`answer ${id}`, () => answers.get(id), 20_000);
  };
}

test("a second stdio server sharing the store cannot read or cancel the first one's task by its id; the first can", async () => {
  const first = await stdioServer();
  const second = await stdioServer();
  const created = await first(1, 'tools/call', { name: 'spin_task', arguments: {} });
  const taskId = (created['result'] as Json | undefined)?.['taskId'] as string;
  expect(typeof taskId, JSON.stringify(created)).toBe('string');
  for (const [id, method] of [
    [1, 'tasks/get'],
    [2, 'tasks/cancel'],
  ] as const) {
    const foreign = await second(id, method, { taskId });
    expect((foreign['error'] as { code: number; message: string } | undefined)?.code, method).toBe(-32602);
    expect((foreign['error'] as { message: string }).message).toBe(`Unknown task: ${taskId}`);
  }
  expect(((await first(2, 'tasks/get', { taskId }))['result'] as Json)['status']).toBe('working');
  await first(3, 'tasks/cancel', { taskId });
  expect(((await first(4, 'tasks/get', { taskId }))['result'] as Json)['status']).toBe('cancelled');
}, 60_000);
