// A client without the server's token against the real `serve --http --token`: every route, the
// token put anywhere but the Authorization header, other schemes, and path tricks that might reach
// a route past the check (dot segments, the unauthenticated /healthz and /ui prefixes, encoded
// characters). None may run a tool: the tool here writes a file when it runs. Then a malformed
// percent-encoding in a route's path, which was a 500.
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest as raw, startHttp, tempDir, writerManifest, type HttpProcess } from './helpers.js';

const TOKEN = 'red-team-token-1';
let h: HttpProcess;
let out: { path: string; remove(): Promise<void> };
let manifests: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  out = await tempDir();
  manifests = await tempDir();
  await writeFile(join(manifests.path, 'writer.yaml'), writerManifest(out.path));
  // no policy set: nothing but the token stands between a request and the tool
  h = await startHttp(['--http', '127.0.0.1:0', '--token', TOKEN, '--manifests', manifests.path, '--policies', 'none']);
});
afterAll(async () => {
  await h.stop();
  await out.remove();
  await manifests.remove();
});

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const callBody = (name: string) => JSON.stringify({ arguments: { cmd: `write /out/${name} yes` } });
const ran = (): string[] => readdirSync(out.path);

describe('without the token nothing runs, whatever the request looks like', () => {
  it('every /v1 route, /metrics and /mcp (both revisions) answer 401 without a credential', async () => {
    const requests: { method: string; path: string; body?: string }[] = [
      { method: 'GET', path: '/v1/tools' },
      { method: 'POST', path: '/v1/tools/writer/call', body: callBody('plain') },
      { method: 'GET', path: '/v1/resources' },
      { method: 'GET', path: '/v1/resources/read?uri=x' },
      { method: 'GET', path: '/v1/prompts' },
      { method: 'POST', path: '/v1/prompts/p/get', body: '{}' },
      { method: 'POST', path: '/v1/completions', body: '{}' },
      { method: 'GET', path: '/v1/approvals' },
      { method: 'POST', path: '/v1/approvals/x', body: '{"outcome":"allowed-once"}' },
      { method: 'GET', path: '/metrics' },
      { method: 'GET', path: '/' },
      {
        method: 'POST',
        path: '/mcp',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      },
      {
        method: 'POST',
        path: '/mcp',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: {
            name: 'writer',
            arguments: { cmd: 'write /out/modern yes' },
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
          },
        }),
      },
    ];
    for (const r of requests) {
      const reply = await raw(h.url, {
        method: r.method,
        path: r.path,
        headers: json,
        ...(r.body ? { body: r.body } : {}),
      });
      expect(reply.status, `${r.method} ${r.path}: ${reply.body}`).toBe(401);
    }
    expect(ran()).toEqual([]);
  });

  it('the token anywhere but "Authorization: Bearer" is no credential', async () => {
    const variants: { path: string; headers: Record<string, string> }[] = [
      { path: `/v1/tools/writer/call?token=${TOKEN}`, headers: {} },
      { path: `/v1/tools/writer/call?access_token=${TOKEN}`, headers: {} },
      { path: '/v1/tools/writer/call', headers: { cookie: `token=${TOKEN}` } },
      { path: '/v1/tools/writer/call', headers: { 'x-api-key': TOKEN } },
      { path: '/v1/tools/writer/call', headers: { authorization: TOKEN } },
      {
        path: '/v1/tools/writer/call',
        headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      },
      { path: '/v1/tools/writer/call', headers: { authorization: `Token ${TOKEN}` } },
      { path: '/v1/tools/writer/call', headers: { authorization: `Bearer ${TOKEN} extra` } },
      { path: '/v1/tools/writer/call', headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` } },
      { path: '/v1/tools/writer/call', headers: { authorization: 'Bearer' } },
    ];
    for (const v of variants) {
      const reply = await raw(h.url, {
        method: 'POST',
        path: v.path,
        headers: { ...json, ...v.headers },
        body: callBody('variant'),
      });
      expect(reply.status, `${JSON.stringify(v)}: ${reply.body}`).toBe(401);
    }
    expect(ran()).toEqual([]);
  });

  it('path tricks reach no route past the check (401, 404 or 405, never a call)', async () => {
    const paths = [
      '/healthz/../v1/tools/writer/call',
      '/healthz/%2e%2e/v1/tools/writer/call',
      '/ui/../v1/tools/writer/call',
      '/ui/%2e%2e/v1/tools/writer/call',
      '//v1/tools/writer/call',
      '/v1//tools/writer/call',
      '/v1/tools/writer/call/',
      '/V1/tools/writer/call',
      '/%76%31/tools/writer/call',
      '/v1/tools/writer%2Fcall',
      '/healthz?/../v1/tools/writer/call',
      '/healthz#/../v1/tools/writer/call',
      'http://127.0.0.1/v1/tools/writer/call',
    ];
    for (const path of paths) {
      const reply = await raw(h.url, { method: 'POST', path, headers: json, body: callBody('tricked') });
      expect([401, 404, 405], `${path}: ${reply.status} ${reply.body}`).toContain(reply.status);
    }
    expect(ran()).toEqual([]);
  });

  it('/healthz answers without a credential, and says no tool name', async () => {
    const reply = await raw(h.url, { path: '/healthz' });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toContain('writer');
  });

  it('/ui answers the sign-in form only; its API and a wrong sign-in get nothing', async () => {
    expect((await raw(h.url, { path: '/ui' })).status).toBe(401);
    expect((await raw(h.url, { path: '/ui/api/pending' })).status).toBeGreaterThanOrEqual(401);
    const login = await raw(h.url, {
      method: 'POST',
      path: '/ui/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=wrong',
    });
    expect(login.status).toBeGreaterThanOrEqual(400);
    expect(login.headers['set-cookie']).toBeUndefined();
  });

  it('with the token the same call runs (the tool and the harness are sound)', async () => {
    const reply = await raw(h.url, {
      method: 'POST',
      path: '/v1/tools/writer/call',
      headers: { ...json, authorization: `Bearer ${TOKEN}` },
      body: callBody('allowed'),
    });
    expect(reply.status, reply.body).toBe(200);
    expect(existsSync(join(out.path, 'allowed'))).toBe(true);
  });
});

describe('/healthz with another method', () => {
  it('is answered 405 at once (it hung, outside the per-client cap, for as long as the client waited)', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
      const started = Date.now();
      const reply = await raw(h.url, {
        method,
        path: '/healthz',
        ...(method === 'POST' || method === 'PUT' ? { body: 'x' } : {}),
      });
      expect(reply.status, method).toBe(405);
      expect(reply.headers['allow']).toBe('GET');
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  });
});

describe('a malformed percent-encoding in a route path', () => {
  it('is a 400 naming the path, not a 500, on each route with a path part', async () => {
    const auth = { ...json, authorization: `Bearer ${TOKEN}` };
    for (const [method, path] of [
      ['POST', '/v1/tools/%E0%A4%A/call'],
      ['POST', '/v1/prompts/%ZZ/get'],
      ['POST', '/v1/approvals/%C3'],
    ] as const) {
      const reply = await raw(h.url, { method, path, headers: auth, body: '{}' });
      expect(reply.status, `${method} ${path}: ${reply.body}`).toBe(400);
      expect(reply.body).toContain('malformed percent-encoding');
    }
    expect(h.stderr()).not.toContain('http request failed');
  });
});
