// What a hostile hyper-mcp module serves besides tools, through the shipped `serve`: resources that
// are huge, deeply nested, not UTF-8, with raw control bytes, a blob that is not base64, a mimeType
// with CR LF or a bidi override, too many contents, the wrong shape, or contents naming another URI
// (a local file); prompts in the role "system", nested 100,000 deep or too many. Each is a clear
// error and the server goes on serving. Then two plugins serving one prompt name or resource URI:
// neither serves it (no plugin shadows another), and the load says so.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, startHttp, tempDir, waitFor, type HttpProcess } from './helpers.js';

const HOSTILE = join(ROOT, 'test/fixtures/build/hyper_hostile_content.wasm');
const V2 = join(ROOT, 'test/fixtures/build/hyper_v2.wasm');

let dir: Awaited<ReturnType<typeof tempDir>>;
let http: HttpProcess;
let session: Client;

const plugin = (name: string, wasm: string) =>
  [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 1.0.0',
    `description: ${name} plugin`,
    `module: { path: ${wasm}, abi: hyper-mcp }`,
    'capabilities: { memory: { max_pages: 256 } }',
    '',
  ].join('\n');

beforeAll(async () => {
  dir = await tempDir();
  const manifests = join(dir.path, 'manifests');
  await mkdir(manifests);
  await writeFile(join(manifests, 'hx.yaml'), plugin('hx', HOSTILE));
  // the same module twice: every prompt name and resource URI of it is claimed by two plugins
  await writeFile(join(manifests, 'twin_a.yaml'), plugin('twin_a', V2));
  await writeFile(join(manifests, 'twin_b.yaml'), plugin('twin_b', V2));
  http = await startHttp(['--http', '127.0.0.1:0', '--manifests', manifests, '--policies', 'none']);
  session = await http.connect();
}, 60_000);

afterAll(async () => {
  await http?.stop();
  await dir?.remove();
});

async function api(path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${http.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

const alive = async () => {
  const r = await api('/v1/resources/read?uri=mem://hostile/plain');
  expect(r.status, r.text).toBe(200);
  expect(JSON.parse(r.text)).toEqual({
    contents: [{ uri: 'mem://hostile/plain', mimeType: 'text/plain', text: 'plain' }],
  });
};

describe('hostile resource contents are refused with a reason, and the server serves on', () => {
  const cases: [string, number, RegExp][] = [
    ['huge', 422, /OUTPUT_TOO_LARGE.*max_output_bytes is 1048576/],
    ['deep', 422, /module output is not valid JSON: .*nested too deeply/],
    ['nul', 422, /module output is not valid JSON: Bad control character/],
    ['badutf8', 422, /module output is not valid JSON: not valid UTF-8/],
    ['blob', 422, /contents\[0\]\.blob: must be base64/],
    ['mime', 422, /contents\[0\]\.mimeType: must not contain control.*\\\\u000d/],
    ['bidi', 422, /contents\[0\]\.mimeType: must not contain control.*\\\\u202e/],
    ['many', 422, /contents: Too big: expected array to have <=64 items/],
    ['wrong', 422, /contents: Invalid input: expected array, received string/],
    ['spoof', 422, /contents\[0\]\.uri: \\"file:\/\/\/etc\/passwd\\" is not the resource read/],
  ];
  for (const [kind, status, reason] of cases) {
    test(`${kind}: ${status} over /v1`, async () => {
      const r = await api(`/v1/resources/read?uri=mem://hostile/${kind}`);
      expect(r.status, r.text).toBe(status);
      expect(r.text).toMatch(reason);
      await alive();
    });
  }

  test('over an MCP session the same reads are errors, and the session goes on', async () => {
    for (const kind of ['huge', 'deep', 'nul', 'spoof']) {
      await expect(session.readResource({ uri: `mem://hostile/${kind}` }), kind).rejects.toThrow();
    }
    const ok = await session.readResource({ uri: 'mem://hostile/plain' });
    expect(ok.contents).toEqual([{ uri: 'mem://hostile/plain', mimeType: 'text/plain', text: 'plain' }]);
  });
});

describe('hostile prompts are refused with a reason', () => {
  test('the role "system", 100,000 levels of nesting and 10,000 messages are each refused; a plain prompt is served', async () => {
    const system = await api('/v1/prompts/system/get', {});
    expect(system.status, system.text).toBe(422);
    expect(system.text).toContain('messages[0].role: Invalid option: expected one of');
    const deep = await api('/v1/prompts/deep/get', {});
    expect(deep.status, deep.text).toBe(422);
    expect(deep.text).toMatch(/not valid JSON: .*nested too deeply/);
    const many = await api('/v1/prompts/many/get', {});
    expect(many.status, many.text).toBe(422);
    expect(many.text).toContain('messages: Too big: expected array to have <=128 items');
    const plain = await api('/v1/prompts/plain/get', {});
    expect(plain.status, plain.text).toBe(200);
  });
});

describe('no plugin shadows another by a prompt name or a resource URI', () => {
  test('a prompt, a resource and a template two plugins serve are listed by neither and read by neither', async () => {
    const prompts = (await session.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).not.toContain('greeting');
    expect(prompts).toContain('plain'); // hx's own, unshared
    const resources = (await session.listResources()).resources.map((r) => r.uri);
    expect(resources).not.toContain('mem://fixture/readme');
    const templates = (await session.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain('mem://hostile/{kind}');
    expect(templates).not.toContain('mem://fixture/items/{id}');
    expect((await api('/v1/resources/read?uri=mem://fixture/readme')).status).toBe(404);
    expect((await api('/v1/resources/read?uri=mem://fixture/items/7')).status).toBe(404);
    expect((await api('/v1/prompts/greeting/get', { arguments: { who: 'Ada' } })).status).toBe(404);
  });

  test('the load names the shared prompt, resource and template and both plugins', async () => {
    const said = () => http.stderr().replaceAll('\\"', '"');
    await waitFor('the warnings', () =>
      said().includes('prompt "greeting" is served by plugins "twin_a" and "twin_b"') &&
      said().includes('resource "mem://fixture/readme" is served by plugins "twin_a" and "twin_b"') &&
      said().includes('resource template "mem://fixture/items/{id}" is served by plugins "twin_a" and "twin_b"')
        ? true
        : undefined,
    );
  });
});
