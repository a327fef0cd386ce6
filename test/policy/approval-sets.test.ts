// One set per call, approvals included, against the real `toolgate serve --http`: an approval
// channel answers only calls of its own set, so rewriting the set to one without a channel cannot
// leave a door open through the old set's queue.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FIXTURE_MANIFESTS, startHttp, tempDir, waitFor, type HttpProcess } from '../server/helpers.js';

const TOKEN = 'approval-sets-test-token';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
let server: HttpProcess | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await server?.stop();
  await cleanup?.();
  server = undefined;
  cleanup = undefined;
});

interface Pending {
  id: string;
  callId: string;
  tool: string;
}
interface CallResult {
  isError: boolean;
  error?: { code: string; message: string };
}

async function pending(url: string): Promise<Pending[]> {
  const res = await fetch(`${url}/v1/approvals`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { approvals: Pending[] }).approvals;
}

function call(url: string, tool: string, args: object): Promise<CallResult> {
  return fetch(`${url}/v1/tools/${tool}/call`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ arguments: args }),
  }).then(async (r) => (await r.json()) as CallResult);
}

const V1 = [
  'entries:',
  '  - { id: approvals-v1, use: approvals, with: { channels: [queue] } }',
  '  - { id: ask-echo, use: ask, with: { tools: [wasm_echo] } }',
].join('\n');
// v2 still asks for wasm_echo but has no approval channel; its deny-tools marks that v2 serves.
const V2 = [
  'entries:',
  '  - { id: ask-echo, use: ask, with: { tools: [wasm_echo] } }',
  '  - { id: v2-marker, use: deny-tools, with: { tools: [wasm_fail] } }',
].join('\n');

test("an approval channel answers only its own set's calls: a set rewritten without a channel denies at once and never queues", async () => {
  const dir = await tempDir();
  cleanup = dir.remove;
  const policies = join(dir.path, 'policies');
  mkdirSync(policies);
  writeFileSync(join(policies, 'set.yaml'), V1);
  server = await startHttp(
    ['--http', '127.0.0.1:0', '--token', TOKEN, '--manifests', FIXTURE_MANIFESTS, '--policies', policies],
    {
      TOOLGATE_HOME: join(dir.path, 'home'),
    },
  );
  const url = server.url;

  // v1: the call waits in the queue.
  const first = call(url, 'wasm_echo', { text: 'v1' });
  const [held] = await waitFor('the v1 call in the queue', async () => {
    const p = await pending(url);
    return p.length === 1 ? p : undefined;
  });
  expect(held?.tool).toBe('wasm_echo');

  // Rewrite to v2 and wait until v2 serves (its marker denies wasm_fail).
  writeFileSync(join(policies, 'set.yaml'), V2);
  await waitFor(
    'v2 to serve',
    async () => ((await call(url, 'wasm_fail', {})).error?.code === 'DENIED' ? true : undefined),
    15_000,
  );

  // The attack: a v2 call must be denied at once, and never appear where v1's queue could approve it.
  const t0 = performance.now();
  const second = await call(url, 'wasm_echo', { text: 'v2' });
  expect(second.error?.code).toBe('APPROVAL_DENIED');
  expect(performance.now() - t0).toBeLessThan(60_000); // well before the 120 s approval timeout
  const now = await pending(url);
  expect(now.map((p) => p.id)).toEqual([held?.id]);

  // The v1 call is still its own set's: v1's queue answers it and it runs.
  const res = await fetch(`${url}/v1/approvals/${held?.id ?? ''}`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ outcome: 'allowed-once' }),
  });
  expect(res.status).toBe(200);
  expect((await first).isError).toBe(false);
  expect(await pending(url)).toEqual([]);
}, 60_000);
