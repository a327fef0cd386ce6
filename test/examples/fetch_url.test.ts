// fetch_url end to end against real HTTP servers on 127.0.0.1: the test writes its own copy of the
// manifest that lists only its server's port, so the host decides what the tool can reach.
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { MANIFESTS, callTool, tempDir, valueOf } from './helpers.js';

let allowed: Server;
let other: Server;
let dir: string;
let cleanup: () => Promise<void>;
let base: string;
let otherBase: string;

const PAGE = `héllo from toolgate 🎉 ${'x'.repeat(200)}`;

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  allowed = createServer((req, res) => {
    if (req.url === '/binary') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.from([0xff, 0x00, 0x01, 0x02]));
    } else if (req.url === '/ua') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.headers['user-agent'] ?? '(none)');
    } else if (req.url === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    } else {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'set-cookie': 'session=secret',
        'x-trace': '1',
      });
      res.end(PAGE);
    }
  });
  other = createServer((_req, res) => res.end('should never be read'));
  base = await listen(allowed);
  otherBase = await listen(other);
  ({ dir, cleanup } = await tempDir('fetch'));
  // The shipped manifest, with the module path made absolute and only this test's server allowed.
  const m = parse(await readFile(join(MANIFESTS, 'fetch_url.yaml'), 'utf8')) as {
    module: { path: string };
    capabilities: { allowed_hosts: string[] };
  };
  m.module.path = join(MANIFESTS, m.module.path);
  m.capabilities.allowed_hosts = [new URL(base).host];
  await writeFile(join(dir, 'fetch_url.yaml'), stringify(m));
}, 300_000);

afterAll(async () => {
  allowed?.close();
  other?.close();
  await cleanup?.();
});

describe('fetch_url (AssemblyScript, host HTTP)', () => {
  it('returns status, chosen headers and the UTF-8 body of an allowed host', async () => {
    const v = await valueOf('fetch_url', { url: `${base}/page` }, dir);
    expect(v).toEqual({
      url: `${base}/page`,
      status: 200,
      ok: true,
      // only the headers worth showing a model: no set-cookie, no tracing ids
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      text: PAGE,
      bytes: Buffer.byteLength(PAGE),
      truncated: false,
    });
  });

  it('cuts the text at max_bytes on a character boundary', async () => {
    // byte 2 is inside "é" (2 bytes at offsets 1-2): the cut backs off to 1 byte, "h".
    const v = await valueOf('fetch_url', { url: `${base}/page`, max_bytes: 2 }, dir);
    expect(v.text).toBe('h');
    expect(v.truncated).toBe(true);
  });

  it('sends the User-Agent that the manifest config names', async () => {
    expect((await valueOf('fetch_url', { url: `${base}/ua` }, dir)).text).toBe('toolgate-fetch_url/1.0');
  });

  it('passes a 404 through as a result, not an error', async () => {
    const v = await valueOf('fetch_url', { url: `${base}/missing` }, dir);
    expect(v.status).toBe(404);
    expect(v.ok).toBe(false);
    expect(v.text).toBe('not here');
  });

  it('refuses a binary body with a clear error', async () => {
    const r = await callTool('fetch_url', { url: `${base}/binary` }, dir);
    expect(r.code).toBe(1);
    expect(r.result.error?.message).toContain('is not UTF-8 text');
  });

  it('cannot reach a host the manifest does not list', async () => {
    const r = await callTool('fetch_url', { url: `${otherBase}/` }, dir);
    expect(r.code).toBe(1);
    expect(r.result.error?.message).toContain(`host ${new URL(otherBase).host} is not in allowed_hosts`);
    expect(JSON.stringify(r.result)).not.toContain('should never be read');
  });

  it('refuses a URL that is not http(s)', async () => {
    const r = await callTool('fetch_url', { url: 'file:///etc/passwd' }, dir);
    expect(r.code).toBe(1);
    expect(r.result.error?.message).toContain("argument 'url' must be an absolute http:// or https:// URL");
  });
});
