// Issue 11, the redaction patterns: a tool's output is hostile input to them. A value made of MBs of
// "-----BEGIN RSA PRIVATE KEY-----" with no END line made V8's backtracking engine scan to the end
// once per BEGIN (quadratic; ~2.8 s of main thread per MiB); on RE2 it is one linear pass, so
// /healthz keeps answering while the redact policy and the audit log scrub it.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, type HttpProcess } from './helpers.js';

let dir: { path: string; remove(): Promise<void> };
let server: HttpProcess;
const MIB = 1024 * 1024;

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  const policies = join(dir.path, 'policies');
  await mkdir(manifests);
  await mkdir(policies);
  await writeFile(
    join(manifests, 'leaky.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: leaky',
      'version: 1.0.0',
      'description: Returns what it is given.',
      `module: { path: ${join(ROOT, 'test/fixtures/build/server_spin.wasm')}, entry: echo }`,
      'parameters: { text: { type: string, required: true } }',
      'output: { schema: { type: object }, render: json }',
      `capabilities: { max_input_bytes: ${4 * MIB}, max_output_bytes: ${8 * MIB}, timeout_ms: 60000 }`,
      '',
    ].join('\n'),
  );
  await writeFile(
    join(policies, 'scrub.yaml'),
    `entries:\n  - { id: scrub, use: redact }\n  - { id: audit, use: audit-log, with: { path: ${JSON.stringify(join(dir.path, 'audit.jsonl'))} } }\n`,
  );
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', policies]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dir?.remove();
});

test('MBs of private-key headers with no END are redacted in one linear pass while /healthz keeps answering', async () => {
  const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret\n-----END RSA PRIVATE KEY-----';
  // One real key first, then headers that never end, then more secrets after them.
  const hostile = `${key} ${'-----BEGIN RSA PRIVATE KEY----- '.repeat(Math.floor((2 * MIB) / 32))}tail token=hunter2hunter2 ghp_${'a'.repeat(30)}`;
  const started = performance.now();
  let done = false;
  const call = fetch(`${server.url}/v1/tools/leaky/call`, {
    method: 'POST',
    body: JSON.stringify({ arguments: { text: hostile } }),
  }).then(async (r) => {
    const body = (await r.json()) as { isError: boolean; structuredContent?: { text: string } };
    done = true;
    return { body, ms: performance.now() - started };
  });
  // The slowest /healthz answer while the call is in flight: on V8 the scrub held the event loop
  // for tens of seconds; the bound below is far above RE2's cost and far below V8's.
  let slowest = 0;
  let polls = 0;
  while (!done) {
    const t = performance.now();
    const h = await fetch(`${server.url}/healthz`);
    expect(h.status).toBe(200);
    slowest = Math.max(slowest, performance.now() - t);
    polls++;
  }
  const { body, ms } = await call;
  expect(body.isError).toBe(false);
  const text = body.structuredContent?.text ?? '';
  expect(text.startsWith('[REDACTED] -----BEGIN RSA PRIVATE KEY----- ')).toBe(true); // a header alone is not a key
  expect(text.endsWith('tail token=[REDACTED] [REDACTED]')).toBe(true);
  expect(text).not.toContain('MIIEsecret');
  expect(text).not.toContain('hunter2');
  const audit = await readFile(join(dir.path, 'audit.jsonl'), 'utf8');
  expect(audit).not.toContain('MIIEsecret');
  expect(slowest).toBeLessThan(8000); // V8: one synchronous scan of this value took ~11 s
  console.log(
    `hostile ${(hostile.length / MIB).toFixed(1)} MiB output redacted; call ${ms.toFixed(0)} ms, ${polls} /healthz polls, slowest ${slowest.toFixed(0)} ms`,
  );
}, 120_000);
