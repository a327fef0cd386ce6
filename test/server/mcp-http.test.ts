// MCP over Streamable HTTP and the plain HTTP API, against the real `toolgate serve --http` process.
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  cpuShare,
  FIXTURE_MANIFESTS,
  rawRequest as raw,
  runToolgate,
  startHttp,
  waitFor,
  type HttpProcess,
} from './helpers.js';

const json = { 'content-type': 'application/json' };

describe('toolgate serve --http 127.0.0.1:0', () => {
  let h: HttpProcess;
  beforeAll(async () => {
    h = await startHttp([
      '--http',
      '127.0.0.1:0',
      '--manifests',
      FIXTURE_MANIFESTS,
      '--max-body',
      '65536',
      '--allow-origin',
      'http://allowed.example',
    ]);
  });
  afterAll(async () => {
    await h?.stop();
  });

  test('prints the bound loopback address with the real port', () => {
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.url).not.toMatch(/:0$/);
  });

  test('tools/list and a WASM tools/call over Streamable HTTP', async () => {
    const client = await h.connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['wasm_echo', 'wasm_fail', 'spin']));
    const r = await client.callTool({ name: 'wasm_echo', arguments: { text: 'over http' } });
    expect(r).toMatchObject({ isError: false, structuredContent: { text: 'over http' } });
    const bad = await client.callTool({ name: 'wasm_fail', arguments: {} });
    expect(bad.isError).toBe(true);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toSatisfy(
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
    );
  });

  test('cancelling a call over HTTP answers the client at once and stops the spinning instance', async () => {
    const client = await h.connect();
    const pid = h.proc.pid ?? 0;
    const ac = new AbortController();
    const pending = client.callTool({ name: 'spin', arguments: {} }, undefined, { signal: ac.signal });
    await waitFor('the spin to burn CPU', async () => ((await cpuShare(pid, 200)) > 0.2 ? true : undefined));
    ac.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await waitFor('the spinning instance to stop', async () => ((await cpuShare(pid, 200)) < 0.1 ? true : undefined));
    expect((await client.callTool({ name: 'wasm_echo', arguments: { text: 'still here' } })).isError).toBe(false);
  });

  test('50 concurrent calls over HTTP are all answered once, each with its own result', async () => {
    const client = await h.connect();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.callTool({ name: 'wasm_echo', arguments: { text: `h${i}` } })),
    );
    results.forEach((r, i) => expect(r.structuredContent).toEqual({ text: `h${i}` }));
    expect(new Set(results.map((r) => r._meta?.['toolgate/callId'])).size).toBe(50);
  });

  test('a browser Origin not on the allowlist is refused with 403; an allowed one passes', async () => {
    const evil = await raw(h.url, { path: '/v1/tools', headers: { origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    expect(evil.body).toContain('Origin');
    const mcp = await raw(h.url, {
      method: 'POST',
      path: '/mcp',
      headers: { ...json, origin: 'https://evil.example' },
      body: '{}',
    });
    expect(mcp.status).toBe(403);
    expect((await raw(h.url, { path: '/v1/tools', headers: { origin: 'http://allowed.example' } })).status).toBe(200);
  });

  test('a Host header that is not the bound address is refused (DNS rebinding)', async () => {
    const port = new URL(h.url).port;
    expect((await raw(h.url, { path: '/v1/tools', headers: { host: `attacker.example:${port}` } })).status).toBe(403);
    expect((await raw(h.url, { path: '/v1/tools', headers: { host: `127.0.0.1:1` } })).status).toBe(403);
    expect((await raw(h.url, { path: '/v1/tools', headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  test('a body over the cap is refused with 413', async () => {
    const big = JSON.stringify({ arguments: { text: 'x'.repeat(70_000) } });
    const r = await raw(h.url, { method: 'POST', path: '/v1/tools/wasm_echo/call', headers: json, body: big });
    expect(r.status).toBe(413);
    // and the server is fine afterwards
    expect((await raw(h.url, { path: '/healthz' })).status).toBe(200);
  });

  test('GET /v1/tools exports mcp, openai and anthropic shapes; a bad format is a 400', async () => {
    const mcp = JSON.parse((await raw(h.url, { path: '/v1/tools?format=mcp' })).body) as { tools: { name: string }[] };
    expect(mcp.tools.some((t) => t.name === 'wasm_echo')).toBe(true);
    const openai = JSON.parse((await raw(h.url, { path: '/v1/tools?format=openai' })).body) as {
      type: string;
      function: { name: string; parameters: unknown };
    }[];
    expect(openai.find((t) => t.function.name === 'wasm_echo')).toMatchObject({
      type: 'function',
      function: { parameters: { type: 'object' } },
    });
    const anthropic = JSON.parse((await raw(h.url, { path: '/v1/tools?format=anthropic' })).body) as {
      name: string;
      input_schema: unknown;
    }[];
    expect(anthropic.find((t) => t.name === 'wasm_echo')).toMatchObject({ input_schema: { type: 'object' } });
    const bad = await raw(h.url, { path: '/v1/tools?format=xml' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('format');
  });

  test('POST /v1/tools/{name}/call returns the ToolResult: 200 even when isError, 404 for an unknown tool, 400 naming a bad field', async () => {
    const ok = await raw(h.url, {
      method: 'POST',
      path: '/v1/tools/wasm_echo/call',
      headers: json,
      body: JSON.stringify({ arguments: { text: 'api' } }),
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ isError: false, structuredContent: { text: 'api' } });
    const failed = await raw(h.url, { method: 'POST', path: '/v1/tools/wasm_fail/call', headers: json, body: '{}' });
    expect(failed.status).toBe(200);
    expect(JSON.parse(failed.body)).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } });
    expect((await raw(h.url, { method: 'POST', path: '/v1/tools/nope/call', headers: json, body: '{}' })).status).toBe(
      404,
    );
    const badField = await raw(h.url, {
      method: 'POST',
      path: '/v1/tools/wasm_echo/call',
      headers: json,
      body: JSON.stringify({ arguments: 'text' }),
    });
    expect(badField.status).toBe(400);
    expect(badField.body).toContain('arguments');
    const extra = await raw(h.url, {
      method: 'POST',
      path: '/v1/tools/wasm_echo/call',
      headers: json,
      body: JSON.stringify({ args: {} }),
    });
    expect(extra.status).toBe(400);
    expect(extra.body).toContain('args');
    expect(
      (await raw(h.url, { method: 'POST', path: '/v1/tools/wasm_echo/call', headers: json, body: '{nope' })).status,
    ).toBe(400);
  });

  test('/metrics is Prometheus text counting calls; /healthz answers', async () => {
    const m = await raw(h.url, { path: '/metrics' });
    expect(m.status).toBe(200);
    expect(String(m.headers['content-type'])).toContain('text/plain');
    expect(m.body).toMatch(/# TYPE \w+ counter/);
    expect(m.body).toMatch(/wasm_echo/);
    const health = JSON.parse((await raw(h.url, { path: '/healthz' })).body) as { status: string };
    expect(health.status).toBe('ok');
  });

  test('a call body without "arguments" is a 400 that shows the expected shape alongside the zod issue', async () => {
    const r = await raw(h.url, {
      method: 'POST',
      path: '/v1/tools/wasm_echo/call',
      headers: json,
      body: JSON.stringify({ name: 'x' }),
    });
    expect(r.status).toBe(400);
    const { error } = JSON.parse(r.body) as { error: { message: string } };
    expect(error.message).toMatch(/Unrecognized key.*"name"/);
    expect(error.message).toContain('expected {"arguments": {...}}');
    const wrongType = JSON.parse(
      (await raw(h.url, { method: 'POST', path: '/v1/tools/wasm_echo/call', headers: json, body: '[1]' })).body,
    ) as { error: { message: string } };
    expect(wrongType.error.message).toContain('expected {"arguments": {...}}');
  });

  test('GET / answers a small index pointing to /mcp, /ui and /v1/tools: JSON when Accept asks for it, text otherwise', async () => {
    const text = await raw(h.url, { path: '/' });
    expect(text.status).toBe(200);
    expect(String(text.headers['content-type'])).toContain('text/plain');
    for (const path of ['/mcp', '/ui', '/v1/tools']) expect(text.body).toContain(`${h.url}${path}`);
    const doc = await raw(h.url, { path: '/', headers: { accept: 'application/json' } });
    expect(doc.status).toBe(200);
    expect(String(doc.headers['content-type'])).toContain('application/json');
    const index = JSON.parse(doc.body) as { name: string; endpoints: { path: string; url: string; what: string }[] };
    expect(index.name).toBe('toolgate');
    expect(index.endpoints.map((e) => e.path)).toEqual(expect.arrayContaining(['/mcp', '/ui', '/v1/tools']));
    expect(index.endpoints.find((e) => e.path === '/mcp')?.url).toBe(`${h.url}/mcp`);
    expect((await raw(h.url, { method: 'POST', path: '/', headers: json, body: '{}' })).status).toBe(404);
  });

  test('the 401 of /v1/approvals names the path of the approval secret file serve wrote', async () => {
    const r = await raw(h.url, { path: '/v1/approvals' });
    expect(r.status).toBe(401);
    const { error } = JSON.parse(r.body) as { error: { message: string } };
    expect(error.message).toContain(join(tmpdir(), 'toolgate-server-test-home', 'approval-secret'));
    expect(error.message).not.toMatch(/printed at start/);
  });

  test('an unknown path is a 404', async () => {
    expect((await raw(h.url, { path: '/nothing' })).status).toBe(404);
  });
});

describe('bearer token', () => {
  test('off loopback without a token, serve refuses to start (exit 2)', async () => {
    const r = await runToolgate(['serve', '--http', '0.0.0.0:0', '--manifests', FIXTURE_MANIFESTS]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/token/i);
  });

  test('with TOOLGATE_TOKEN every request needs it (401 without, 200 with), compared in constant time', async () => {
    const h = await startHttp(['--http', '0.0.0.0:0', '--manifests', FIXTURE_MANIFESTS], {
      TOOLGATE_TOKEN: 's3cret-token',
    });
    try {
      const url = h.url.replace('0.0.0.0', '127.0.0.1');
      const none = await raw(url, { path: '/v1/tools' });
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      expect((await raw(url, { path: '/v1/tools', headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect(
        (await raw(url, { path: '/v1/tools', headers: { authorization: 'Bearer s3cret-token-longer' } })).status,
      ).toBe(401);
      expect((await raw(url, { path: '/v1/tools', headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(
        200,
      );
      expect((await raw(url, { method: 'POST', path: '/mcp', headers: json, body: '{}' })).status).toBe(401);
    } finally {
      expect(await h.stop()).toBe(0);
    }
  });

  test('a token also protects a loopback server when given', async () => {
    const h = await startHttp(['--http', '127.0.0.1:0', '--token', 'tok', '--manifests', FIXTURE_MANIFESTS]);
    try {
      expect((await raw(h.url, { path: '/v1/tools' })).status).toBe(401);
      const client = await h.connect({ headers: { authorization: 'Bearer tok' } });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await h.stop();
    }
  });
});

describe('limits and shutdown', () => {
  test('past the per-client concurrency cap a request is answered 429', async () => {
    const h = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--max-concurrent', '2']);
    const hung: Promise<unknown>[] = [];
    const sockets: { destroy(): void }[] = [];
    try {
      const u = new URL(h.url);
      for (let i = 0; i < 2; i++) {
        hung.push(
          new Promise((resolve) => {
            const req = request(
              { host: u.hostname, port: u.port, method: 'POST', path: '/v1/tools/spin/call', headers: json },
              resolve,
            );
            req.on('error', resolve);
            req.end('{}');
            sockets.push(req);
          }),
        );
      }
      await waitFor('both spins to be running', async () => {
        const health = JSON.parse((await raw(h.url, { path: '/healthz' })).body) as { inFlight: number };
        return health.inFlight === 2 ? true : undefined;
      });
      // /healthz itself is one request at a time, so it got through; a third call does not
      const third = await raw(h.url, {
        method: 'POST',
        path: '/v1/tools/wasm_echo/call',
        headers: json,
        body: JSON.stringify({ arguments: { text: 'x' } }),
      });
      expect(third.status).toBe(429);
    } finally {
      for (const s of sockets) s.destroy(); // hanging up cancels the spinning calls
      await Promise.all(hung);
      await h.stop();
    }
  });

  test('SIGTERM lets a running call finish up to the deadline, answers it, and exits 0', async () => {
    const h = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--shutdown-timeout', '500']);
    const answer = raw(h.url, { method: 'POST', path: '/v1/tools/spin/call', headers: json, body: '{}' });
    await waitFor('the spin to be running', async () => {
      const health = JSON.parse((await raw(h.url, { path: '/healthz' })).body) as { inFlight: number };
      return health.inFlight === 1 ? true : undefined;
    });
    const t0 = performance.now();
    h.proc.kill('SIGTERM');
    const r = await answer;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ isError: true, error: { code: 'ABORTED' } });
    expect(await h.stop()).toBe(0);
    const took = performance.now() - t0;
    expect(took).toBeGreaterThan(400);
    expect(took).toBeLessThan(8000);
    expect(h.stderr()).toContain('cancelled');
  });
});
