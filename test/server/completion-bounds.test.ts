// completion/complete (and resources/read) as a hostile client and a hostile module see them,
// through the shipped `serve`: on a 2025-11-25 session over stdio and over Streamable HTTP, on
// 2026-07-28 and on the /v1 API. What a client names is held to its bound before any plugin's
// templates are matched against it; what a module answers is checked like any other result (size,
// shape, time, and no hidden characters in the values a client shows and inserts); thousands of
// completions in flight are all answered, and queued ones end at their deadline.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, startHttp, startStdio, tempDir, type HttpProcess, type StdioServer } from './helpers.js';
import { modernRpc } from './modern-rpc.js';

const HOSTILE = join(ROOT, 'test/fixtures/build/hyper_hostile_content.wasm');
const V2 = join(ROOT, 'test/fixtures/build/hyper_v2.wasm');
/** The hostile module's deadline: a slow completion ends in TIMEOUT after it. */
const TIMEOUT_MS = 1500;

let dir: Awaited<ReturnType<typeof tempDir>>;
let stdio: StdioServer;
let http: HttpProcess;
let session: Client;

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  await writeFile(
    join(manifests, 'hx.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: hx',
      'version: 1.0.0',
      'description: hostile completions',
      `module: { path: ${HOSTILE}, abi: hyper-mcp }`,
      `capabilities: { memory: { max_pages: 256 }, timeout_ms: ${TIMEOUT_MS} }`,
      '',
    ].join('\n'),
  );
  // a well-behaved plugin with room in its deadline, for the flood: its queued calls all get their turn
  await writeFile(
    join(manifests, 'v2.yaml'),
    [
      'apiVersion: toolgate/v1',
      'name: v2',
      'version: 1.0.0',
      'description: plain completions',
      `module: { path: ${V2}, abi: hyper-mcp }`,
      'capabilities: { memory: { max_pages: 256 }, timeout_ms: 60000 }',
      '',
    ].join('\n'),
  );
  const args = ['--manifests', manifests, '--no-watch', '--policies', 'none'];
  stdio = await startStdio(args, { env: { TOOLGATE_HOME: join(dir.path, 'home-stdio') } });
  http = await startHttp(['--http', '127.0.0.1:0', ...args], { TOOLGATE_HOME: join(dir.path, 'home-http') });
  session = await http.connect();
}, 60_000);

afterAll(async () => {
  await stdio?.close();
  await http?.stop();
  await dir?.remove();
});

const prompt = { type: 'ref/prompt', name: 'plain' } as const;
const typed = (value: string) => ({ ref: prompt, argument: { name: 'a', value } });

/** The error a 2025-11-25 client gets for a completion, or its values. */
async function completeOn(client: Client, params: Record<string, unknown>): Promise<string[] | Error> {
  return client.complete(params as Parameters<Client['complete']>[0], { timeout: 30_000 }).then(
    (r) => r.completion.values,
    (e: unknown) => e as Error,
  );
}

async function api(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${http.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe("a module's completion answer is checked like any result, and the server answers on", () => {
  const cases: [string, RegExp][] = [
    ['huge', /OUTPUT_TOO_LARGE: output is \d+ bytes; max_output_bytes is 1048576/],
    ['malformed', /TOOL_ERROR: module output is not valid JSON/],
    ['wrong', /completion\.values: Invalid input: expected array, received string/],
    ['many', /completion\.values: Too big: expected array to have <=100 items/],
    ['long', /completion\.values\[0\]: Too big: expected string to have <=1024 characters/],
    ['escape', /completion\.values\[0\]: must not contain control.*\\u001b/],
    ['bidi', /completion\.values\[0\]: must not contain control.*\\u202e/],
  ];
  for (const [kind, reason] of cases) {
    test(`${kind}: refused with its reason on both revisions and the /v1 API`, async () => {
      expect(String(await completeOn(stdio.client, typed(kind)))).toMatch(reason);
      expect(String(await completeOn(session, typed(kind)))).toMatch(reason);
      const modern = await modernRpc(http.url, 'completion/complete', typed(kind));
      expect(modern.message.error?.message).toMatch(reason);
      const r = await api('/v1/completions', typed(kind));
      expect(r.status, r.text).toBe(422);
      const { code, message } = (JSON.parse(r.text) as { error: { code: string; message: string } }).error;
      expect(`${code}: ${message}`).toMatch(reason);
      expect(await completeOn(stdio.client, typed('plain'))).toEqual(['plain', 'plainer']);
    }, 30_000);
  }

  test('a completion that never returns ends in TIMEOUT at its deadline, and the next one is answered', async () => {
    const started = Date.now();
    expect(String(await completeOn(stdio.client, typed('slow')))).toMatch(
      new RegExp(`TIMEOUT: .*deadline of ${TIMEOUT_MS} ms`),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    const modern = await modernRpc(http.url, 'completion/complete', typed('slow'));
    expect(modern.message.error?.message).toMatch(/TIMEOUT/);
    expect(await completeOn(stdio.client, typed('plain'))).toEqual(['plain', 'plainer']);
  }, 30_000);
});

describe('what a client names in a completion or a read is bounded before any lookup', () => {
  const long = (n: number) => 'x'.repeat(n);
  const manyArguments = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
  const over: [string, Record<string, unknown>, RegExp][] = [
    [
      'a ref.uri of 1 MiB',
      { ref: { type: 'ref/resource', uri: `mem://hostile/${long(1 << 20)}` }, argument: { name: 'kind', value: 'a' } },
      /params\.ref\.uri is 1048590 characters, more than 2048/,
    ],
    [
      'a ref.name of 129 characters',
      { ref: { type: 'ref/prompt', name: long(129) }, argument: { name: 'a', value: 'a' } },
      /params\.ref\.name is 129 characters, more than 128/,
    ],
    [
      'an argument value of 4097 characters',
      typed(long(4097)),
      /params\.argument\.value is 4097 characters, more than 4096/,
    ],
    [
      'an argument name of 129 characters',
      { ref: prompt, argument: { name: long(129), value: 'a' } },
      /params\.argument\.name is 129 characters, more than 128/,
    ],
    [
      '33 context arguments',
      { ...typed('echo'), context: { arguments: manyArguments(33) } },
      /params\.context\.arguments has 33 entries, more than 32/,
    ],
    [
      'a context argument of 4097 characters',
      { ...typed('echo'), context: { arguments: { a: long(4097) } } },
      /params\.context\.arguments\["a"\] is 4097 characters, more than 4096/,
    ],
  ];
  for (const [what, params, reason] of over) {
    test(`${what} is -32602 naming the bound, on both revisions and the /v1 API`, async () => {
      const v1 = await completeOn(stdio.client, params);
      expect(String(v1)).toMatch(reason);
      expect((v1 as { code?: number }).code).toBe(-32602);
      expect(String(await completeOn(session, params))).toMatch(reason);
      const modern = await modernRpc(http.url, 'completion/complete', params);
      expect(modern.message.error?.code).toBe(-32602);
      expect(modern.message.error?.message).toMatch(reason);
      const r = await api('/v1/completions', params);
      expect(r.status, r.text).toBe(400);
      expect((JSON.parse(r.text) as { error: { message: string } }).error.message).toMatch(reason);
    }, 30_000);
  }

  test('32 context arguments of 4096 characters reach the module, and only its arguments pass on', async () => {
    const full = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, long(4096)]));
    const params = { ...typed('echo'), context: { arguments: full } };
    expect(await completeOn(stdio.client, params)).toEqual(['context:32']);
    const modern = await modernRpc(http.url, 'completion/complete', params);
    expect(modern.message.result?.['completion']).toMatchObject({ values: ['context:32'] });
  }, 30_000);

  test('resources/read of a URI of 1 MiB is -32602 naming the bound, on both revisions', async () => {
    const uri = `mem://hostile/${long(1 << 20)}`;
    const reason = /resources\/read: params\.uri is 1048590 characters, more than 2048/;
    const v1 = await stdio.client.readResource({ uri }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: number },
    );
    expect(String(v1)).toMatch(reason);
    expect(v1?.code).toBe(-32602);
    // a 2026-07-28 request names its URI in a header too, which Node caps at 16 KiB
    const modern = await modernRpc(http.url, 'resources/read', { uri: uri.slice(0, 8192) });
    expect(modern.message.error?.code).toBe(-32602);
    expect(modern.message.error?.message).toMatch(/resources\/read: params\.uri is 8192 characters, more than 2048/);
    // at the bound it is read as before
    const read = await stdio.client.readResource({ uri: `mem://hostile/${long(2048 - 14)}` });
    expect(read.contents[0]).toMatchObject({ text: 'plain' });
  }, 30_000);
});

describe('completions in flight', () => {
  test('2000 completions sent at once over stdio are each answered', async () => {
    const item = {
      ref: { type: 'ref/resource', uri: 'mem://fixture/items/{id}' },
      argument: { name: 'id', value: 'al' },
    };
    const answers = await Promise.all(Array.from({ length: 2000 }, () => completeOn(stdio.client, item)));
    const failed = [...new Set(answers.filter((a) => !Array.isArray(a)).map(String))];
    expect(failed).toEqual([]);
    expect(answers.filter((a) => Array.isArray(a) && a.join() === 'resource,alpha,alps')).toHaveLength(2000);
  }, 60_000);

  test('200 completions that never return, sent at once, each end in TIMEOUT, queued ones at their deadline', async () => {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, () => completeOn(stdio.client, typed('slow'))));
    expect(answers.filter((a) => /TIMEOUT/.test(String(a)))).toHaveLength(200);
    // the deadline runs while a call waits for an instance, so none waits for the others to spin
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 8);
    expect(await completeOn(stdio.client, typed('plain'))).toEqual(['plain', 'plainer']);
  }, 60_000);
});
