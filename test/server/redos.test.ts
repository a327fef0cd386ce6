// Hole 2 of issue 11, as the attack: a manifest whose parameter pattern backtracks exponentially
// (^(a+)+$) and an argument built to trigger it. Patterns run on RE2, so the server stays live.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, type HttpProcess } from './helpers.js';

let dir: { path: string; remove(): Promise<void> };
let server: HttpProcess;

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  await writeFile(
    join(manifests, 'careless.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: careless',
      'version: 1.0.0',
      'description: Echoes a code that must be all a.',
      `module: { path: ${join(ROOT, 'test/fixtures/build/server_spin.wasm')}, entry: echo }`,
      'inputSchema:',
      '  type: object',
      '  properties: { text: { type: string, pattern: "^(a+)+$" } }',
      '  required: [text]',
      'output: { schema: { type: object }, render: json }',
      '',
    ].join('\n'),
  );
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', 'none']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dir?.remove();
});

test('an exponential-backtracking parameter pattern does not block /healthz while the call is checked', async () => {
  // 40 characters: on a backtracking engine this check would take hours (each character doubles it).
  const argument = `${'a'.repeat(40)}!`;
  const started = performance.now();
  const call = fetch(`${server.url}/v1/tools/careless/call`, {
    method: 'POST',
    body: JSON.stringify({ arguments: { text: argument } }),
  }).then(async (r) => {
    const body = (await r.json()) as { isError: boolean; error?: { code: string; message: string } };
    return { body, ms: performance.now() - started };
  });
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  const { body, ms } = await call;
  expect(body.isError).toBe(true);
  expect(body.error?.code).toBe('INVALID_ARGS');
  expect(body.error?.message).toContain('text');
  // A matching value still passes the same pattern.
  const ok = (await (
    await fetch(`${server.url}/v1/tools/careless/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { text: 'a'.repeat(100_000) } }),
    })
  ).json()) as { isError: boolean };
  expect(ok.isError).toBe(false);
  console.log(`ReDoS call (^(a+)+$ on ${argument.length} chars) answered in ${ms.toFixed(1)} ms`);
});
