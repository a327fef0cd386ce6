// The HTTP server under real clients: sessions that end, same-origin requests, GET without a
// session, and one wording per error across transports.
import { request, type ClientRequest } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import {
  FIXTURE_MANIFESTS,
  rawRequest as raw,
  runToolgate,
  startHttp,
  startStdio,
  waitFor,
  type HttpProcess,
  type RawReply as Reply,
} from './helpers.js';

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Opens a session with a raw initialize; returns its id. */
async function openSession(
  url: string,
  headers: Record<string, string> = {},
  from?: string,
): Promise<Reply & { id: string | undefined }> {
  const r = await raw(url, {
    method: 'POST',
    path: '/mcp',
    headers: { ...mcpHeaders, ...headers },
    body: initBody,
    ...(from !== undefined ? { from } : {}),
  });
  const id = r.headers['mcp-session-id'];
  return { ...r, id: typeof id === 'string' ? id : undefined };
}

/** A request in a session (a ping): 200 while it lives, 404 once it ended. */
async function ping(url: string, id: string): Promise<number> {
  const r = await raw(url, {
    method: 'POST',
    path: '/mcp',
    headers: { ...mcpHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  return r.status;
}

/** Holds a spinning tools/call open in a session (a busy session) until the returned request is destroyed. */
function holdCall(url: string, id: string): ClientRequest {
  const u = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'spin', arguments: {} } });
  const req = request(
    {
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: '/mcp',
      headers: { ...mcpHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    },
    (res) => res.resume(),
  );
  req.on('error', () => {});
  req.end(body);
  return req;
}

let server: HttpProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

test('an HTTP session idle for --session-idle-timeout is closed; a later request in it is 404', async () => {
  server = await startHttp([
    '--http',
    '127.0.0.1:0',
    '--manifests',
    FIXTURE_MANIFESTS,
    '--session-idle-timeout',
    '300',
  ]);
  const s = await openSession(server.url);
  expect(s.status).toBe(200);
  expect(await ping(server.url, s.id ?? '')).toBe(200);
  const h = server;
  // polled through /healthz: a ping would use the session and keep it alive
  const active = async () =>
    (JSON.parse((await raw(h.url, { path: '/healthz' })).body) as { sessions: { active: number } }).sessions.active;
  expect(await active()).toBe(1);
  await waitFor('the idle session to be closed', async () => ((await active()) === 0 ? true : undefined), 15_000);
  expect(await ping(server.url, s.id ?? '')).toBe(404);
});

test('at --max-sessions the least recently used idle session is evicted for a new client', async () => {
  server = await startHttp([
    '--http',
    '127.0.0.1:0',
    '--manifests',
    FIXTURE_MANIFESTS,
    '--max-sessions',
    '2',
    '--max-sessions-per-address',
    '2',
  ]);
  const a = await openSession(server.url);
  const b = await openSession(server.url);
  expect(await ping(server.url, a.id ?? '')).toBe(200); // a is now more recently used than b
  const c = await openSession(server.url);
  expect(c.status).toBe(200);
  expect(await ping(server.url, b.id ?? '')).toBe(404);
  expect(await ping(server.url, a.id ?? '')).toBe(200);
  expect(await ping(server.url, c.id ?? '')).toBe(200);
});

test('when every session is busy a new client is refused 503 and /healthz reports saturation', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--max-sessions', '1']);
  const before = JSON.parse((await raw(server.url, { path: '/healthz' })).body) as {
    status: string;
    sessions: unknown;
  };
  expect(before).toMatchObject({ status: 'ok', sessions: { active: 0, max: 1, saturated: false } });
  const a = await openSession(server.url);
  const call = holdCall(server.url, a.id ?? '');
  try {
    const h = server;
    await waitFor('the call to run', async () =>
      (JSON.parse((await raw(h.url, { path: '/healthz' })).body) as { inFlight: number }).inFlight === 1
        ? true
        : undefined,
    );
    const health = await raw(server.url, { path: '/healthz' });
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({
      status: 'saturated',
      sessions: { active: 1, max: 1, saturated: true },
    });
    // from another address, so this is the cap's 503 (this address is at its own share: a 429)
    const refused = await openSession(server.url, {}, '127.0.0.2');
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: -32000, message: expect.stringContaining('too many MCP sessions (1)') },
    });
  } finally {
    call.destroy();
  }
  // the call ended: the session is idle again, so a new client evicts it
  const h = server;
  await waitFor('a new client to get in', async () => ((await openSession(h.url)).status === 200 ? true : undefined));
});

test("a request whose Origin is the server's own bound origin is accepted; foreign Origins and Hosts are still refused", async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS]);
  const port = new URL(server.url).port;
  const own = await openSession(server.url, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` });
  expect(own.status).toBe(200);
  expect(
    (await openSession(server.url, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status,
  ).toBe(200);
  // the same names on another port, another scheme, or a foreign name are other origins
  expect((await openSession(server.url, { origin: `http://127.0.0.1:${Number(port) === 1 ? 2 : 1}` })).status).toBe(
    403,
  );
  expect((await openSession(server.url, { origin: `https://127.0.0.1:${port}` })).status).toBe(403);
  expect((await openSession(server.url, { origin: 'http://evil.example.com' })).status).toBe(403);
  expect((await openSession(server.url, { host: 'evil.example.com', origin: 'http://evil.example.com' })).status).toBe(
    403,
  );
  expect((await openSession(server.url, { host: `evil.example.com:${port}` })).status).toBe(403);
});

test('GET /mcp without a session is answered 405', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS]);
  const r = await raw(server.url, { path: '/mcp', headers: { accept: 'text/event-stream' } });
  expect(r.status).toBe(405);
  expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
});

test('one wording per error code: an unknown tool and a timeout read the same over stdio and HTTP', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS]);
  const overHttp = await server.connect();
  const stdio = await startStdio(['--manifests', FIXTURE_MANIFESTS]);
  try {
    const texts = await Promise.all(
      [overHttp, stdio.client].map(async (client) => {
        const timeout = await client.callTool({ name: 'spin_short', arguments: {} });
        const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(
          () => 'answered',
          (err: unknown) => (err instanceof Error ? err.message : String(err)),
        );
        return { timeout: (timeout.content as { text: string }[])[0]?.text, unknown };
      }),
    );
    expect(texts[0]).toEqual(texts[1]);
    expect(texts[0]?.timeout).toMatch(/^tool "spin_short" did not finish within its deadline of 200 ms/);
    // the SDK client adds "MCP error CODE: " once; the server no longer adds it too
    expect(texts[0]?.unknown).toBe('MCP error -32602: Invalid params: Unknown tool: nope');
  } finally {
    await stdio.close();
  }
});

test('--session-idle-timeout and --max-sessions refuse a value that is not a positive integer, naming the flag', async () => {
  for (const [flag, value] of [
    ['--session-idle-timeout', '0'],
    ['--max-sessions', 'many'],
  ] as const) {
    const r = await runToolgate(['serve', '--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, flag, value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${flag}: must be a positive integer, got "${value}"`);
  }
});
