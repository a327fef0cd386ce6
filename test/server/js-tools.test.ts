// Tools written in JavaScript and TypeScript (module.abi: component, docs/authoring-ts.md) served by
// the real `serve`: the TypeScript example fetches an allowed host, a spinning tool is TIMEOUT while
// the server keeps answering, and a component of another world is refused at load naming the file.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, waitFor, type HttpProcess } from './helpers.js';

const HOSTILE = join(ROOT, 'test/fixtures/build/js_hostile.wasm');
const OTHER_WORLD = join(ROOT, 'test/fixtures/build/js_other_world.wasm');
const EXAMPLE = join(ROOT, 'pdk-examples/js/summarise.yaml');

function hostileManifest(name: string, wasm: string): string {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: A JavaScript tool whose mode the test picks.',
    `module: { path: ${JSON.stringify(wasm)}, abi: component }`,
    'parameters:',
    '  mode: { type: string, required: true }',
    '  text: { type: string }',
    'output: { schema: { type: object } }',
    'capabilities: { timeout_ms: 2000, memory: { max_pages: 512 } }',
    '',
  ].join('\n');
}

let site: Server;
let server: HttpProcess;
let dir: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  site = createServer((_req, res) =>
    res.end(
      '<html><title>Sandbox notes</title><body><p>Tools run in a sandbox. Each call is checked.</p></body></html>',
    ),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const port = (site.address() as AddressInfo).port;
  dir = await tempDir();
  const example = (await readFile(EXAMPLE, 'utf8'))
    .replace('path: build/summarise.wasm', `path: ${join(ROOT, 'pdk-examples/js/build/summarise.wasm')}`)
    .replace('allowed_hosts: ["127.0.0.1:8080"]', `allowed_hosts: ["127.0.0.1:${port}"]`);
  await writeFile(join(dir.path, 'summarise.yaml'), example);
  await writeFile(join(dir.path, 'js_hostile.yaml'), hostileManifest('js_hostile', HOSTILE));
  await writeFile(join(dir.path, 'js_other.yaml'), hostileManifest('js_other', OTHER_WORLD));
  // the dev set never asks a person: the calls here run unattended
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', dir.path, '--policy-set', 'dev']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dir?.remove();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

test('the TypeScript example fetches an allowed host through the gate and summarises the page', async () => {
  const client = await server.connect();
  const port = (site.address() as AddressInfo).port;
  const result = await client.callTool({ name: 'summarise', arguments: { url: `http://127.0.0.1:${port}/notes` } });
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(result.structuredContent).toEqual({
    title: 'Sandbox notes',
    words: 11,
    first_sentence: 'Sandbox notes Tools run in a sandbox.',
  });
}, 30_000);

test('a JavaScript tool that loops forever is TIMEOUT, and the server and the tool keep answering', async () => {
  const client = await server.connect();
  const started = performance.now();
  const spun = await client.callTool({ name: 'js_hostile', arguments: { mode: 'loop' } });
  expect(spun.isError).toBe(true);
  expect((spun._meta?.['toolgate/error'] as { code?: string } | undefined)?.code).toBe('TIMEOUT');
  expect(performance.now() - started).toBeLessThan(8_000);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  const after = await client.callTool({ name: 'js_hostile', arguments: { mode: 'echo', text: 'still here' } });
  expect(after.structuredContent).toEqual({ echo: 'still here' });
}, 30_000);

test('a component built against another world is refused at load, naming the manifest and the reason', async () => {
  const client = await server.connect();
  await waitFor('the refusal logged', () => (server.stderr().includes('WRONG_WORLD') ? true : undefined), 20_000);
  expect(server.stderr()).toContain(join(dir.path, 'js_other.yaml'));
  expect(server.stderr()).toMatch(/differs from toolgate's world toolgate:tool\/tool@0\.1\.0/);
  expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('js_other');
}, 30_000);
