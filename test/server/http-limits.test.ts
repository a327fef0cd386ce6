// The HTTP server's per-client limits under an attacker on one address: a made-up session id
// buys no concurrency budget, wrong credentials are slowed to a few a minute, and idle event
// streams neither keep sessions alive nor let one address take every session slot. "Another
// address" is 127.0.0.2 (Linux routes all of 127.0.0.0/8 to lo).
import { randomUUID } from 'node:crypto';
import { Agent, request, type ClientRequest } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { startUiServer, type UiServer } from '../ui/helpers.js';
import {
  FIXTURE_MANIFESTS,
  rawRequest as raw,
  startHttp,
  waitFor,
  type HttpProcess,
  type RawOptions,
  type RawReply as Reply,
} from './helpers.js';

const json = { 'content-type': 'application/json' };
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function openSession(url: string, from = '127.0.0.1'): Promise<Reply & { id: string }> {
  const r = await raw(url, { method: 'POST', path: '/mcp', headers: mcpHeaders, body: initBody, from });
  const id = r.headers['mcp-session-id'];
  return { ...r, id: typeof id === 'string' ? id : '' };
}

async function health(url: string): Promise<{ inFlight: number; sessions: { active: number } }> {
  return JSON.parse((await raw(url, { path: '/healthz' })).body) as { inFlight: number; sessions: { active: number } };
}

/** Opens a request and resolves once its response headers arrived; destroying it hangs up. */
function hold(url: string, opts: RawOptions): Promise<{ req: ClientRequest; status: number; ended: Promise<void> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers ?? {},
        localAddress: opts.from ?? '127.0.0.1',
      },
      (res) => {
        const ended = new Promise<void>((done) => {
          res.on('close', () => done());
          res.on('error', () => done());
        });
        res.resume();
        resolve({ req, status: res.statusCode ?? 0, ended });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A GET event stream on a session: open, idle, until the server ends it or the test hangs up. */
const holdStream = (url: string, id: string, from = '127.0.0.1') =>
  hold(url, {
    path: '/mcp',
    headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    from,
  });

/** Sends a request and leaves it open (a spinning call); destroying it hangs up, which cancels the call. */
function fire(url: string, opts: RawOptions): ClientRequest {
  const u = new URL(url);
  const req = request(
    {
      host: u.hostname,
      port: u.port,
      method: opts.method ?? 'GET',
      path: opts.path,
      headers: opts.headers ?? {},
      localAddress: opts.from ?? '127.0.0.1',
    },
    (res) => res.resume(),
  );
  req.on('error', () => {});
  req.end(opts.body);
  return req;
}

/** A spinning tools/call in a session: a request in progress, so the session is busy. */
const holdCall = (url: string, id: string, from = '127.0.0.1') =>
  fire(url, {
    method: 'POST',
    path: '/mcp',
    headers: { ...mcpHeaders, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'spin', arguments: {} } }),
    from,
  });

let server: HttpProcess | undefined;
let ui: UiServer | undefined;
afterEach(async () => {
  await server?.stop();
  await ui?.stop();
  server = undefined;
  ui = undefined;
});

test('a made-up mcp-session-id buys no concurrency budget: of 24 spins with random ids from one address, --max-concurrent 6 run and 18 get 429', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--max-concurrent', '6']);
  const u = new URL(server.url);
  const sockets: ClientRequest[] = [];
  const refused: Reply[] = [];
  const settled: Promise<unknown>[] = [];
  for (let i = 0; i < 24; i++) {
    settled.push(
      new Promise<void>((resolve) => {
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            method: 'POST',
            path: '/v1/tools/spin/call',
            headers: { ...json, 'mcp-session-id': randomUUID() },
          },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => {
              refused.push({ status: res.statusCode ?? 0, body, headers: res.headers });
              resolve();
            });
            res.on('error', () => resolve());
          },
        );
        req.on('error', () => resolve());
        req.end('{}');
        sockets.push(req);
      }),
    );
  }
  try {
    const h = server;
    // Every call either runs (in flight until its 5 s deadline) or was answered at once.
    const inFlight = await waitFor('every call to run or be refused', async () => {
      const n = (await health(h.url)).inFlight;
      return n + refused.length >= 24 ? n : undefined;
    });
    expect(inFlight).toBe(6);
    expect(refused).toHaveLength(18);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe('1');
      expect(JSON.parse(r.body)).toMatchObject({
        error: {
          status: 429,
          message: expect.stringContaining('too many concurrent requests from this client (max 6)'),
        },
      });
    }
  } finally {
    for (const s of sockets) s.destroy();
    await Promise.all(settled);
  }
});

test('a real session gives its own concurrency budget only to the address that opened it', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--max-concurrent', '1']);
  const mine = await openSession(server.url, '127.0.0.1');
  const theirs = await openSession(server.url, '127.0.0.2');
  const spins = ['127.0.0.1', '127.0.0.2'].map((from) =>
    fire(server?.url ?? '', { method: 'POST', path: '/v1/tools/spin/call', headers: json, body: '{}', from }),
  );
  try {
    const h = server;
    await waitFor('both spins to run', async () => ((await health(h.url)).inFlight === 2 ? true : undefined));
    const echo = (sid: string, from: string) =>
      raw(h.url, {
        method: 'POST',
        path: '/v1/tools/wasm_echo/call',
        headers: { ...json, 'mcp-session-id': sid },
        body: JSON.stringify({ arguments: { text: 'x' } }),
        from,
      });
    expect((await echo(mine.id, '127.0.0.1')).status).toBe(200); // its own session: its own budget
    expect((await echo(theirs.id, '127.0.0.1')).status).toBe(429); // another address's session: this address's budget
  } finally {
    for (const s of spins) s.destroy();
  }
});

test('wrong bearer tokens are limited per address: after 10 the address gets 429 + Retry-After unchecked, another address still gets in, and after the window it is let in again', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--token', 'the-right-token'], {
    TOOLGATE_TEST_CREDENTIAL_WINDOW_MS: '4000',
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const h = server;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  try {
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) => raw(h.url, { path: '/v1/tools', headers: bearer(`guess-${i}`), agent })),
    );
    const elapsed = performance.now() - started;
    const counts = { 401: 0, 429: 0 };
    for (const r of replies) counts[r.status as 401 | 429] += 1;
    expect(elapsed).toBeLessThan(4000); // all inside the window
    expect(counts).toEqual({ 401: 10, 429: 290 });
    const limited = replies.find((r) => r.status === 429);
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(limited?.body ?? '{}')).toMatchObject({
      error: { message: expect.stringContaining('too many wrong credentials from this address') },
    });
    // the right token is not even checked from the guessing address
    expect((await raw(h.url, { path: '/v1/tools', headers: bearer('the-right-token') })).status).toBe(429);
    // another address is not locked out
    expect(
      (await raw(h.url, { path: '/v1/tools', headers: bearer('the-right-token'), from: '127.0.0.2' })).status,
    ).toBe(200);
    // /healthz needs no credential and is not limited
    expect((await raw(h.url, { path: '/healthz' })).status).toBe(200);
    await waitFor(
      'the window to end',
      async () =>
        (await raw(h.url, { path: '/v1/tools', headers: bearer('the-right-token') })).status === 200 ? true : undefined,
      15_000,
    );
  } finally {
    agent.destroy();
  }
});

test('wrong /ui sign-ins and wrong approval secrets are limited per address; the right secret from another address still works', async () => {
  ui = await startUiServer({ env: { TOOLGATE_TEST_CREDENTIAL_WINDOW_MS: '4000' } });
  const { url, secret } = ui;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const signIn = (credential: string, from = '127.0.0.1') =>
    raw(url, {
      method: 'POST',
      path: '/ui/login',
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `credential=${encodeURIComponent(credential)}`,
      from,
      agent,
    });
  try {
    const logins = await Promise.all(Array.from({ length: 300 }, (_, i) => signIn(`guess-${i}`)));
    expect(logins.filter((r) => r.status === 401)).toHaveLength(10);
    const limited = logins.filter((r) => r.status === 429);
    expect(limited).toHaveLength(290);
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited[0]?.body).toContain('too many wrong credentials from this address');
    // the same address is limited on the approval routes too (one count per address)
    const approvals = await raw(url, { path: '/v1/approvals', headers: { authorization: `Bearer ${secret}` } });
    expect(approvals.status).toBe(429);
    expect(approvals.headers['retry-after']).toBeDefined();
    // from another address: wrong secrets are counted there too, the right one works
    const wrong = await Promise.all(
      Array.from({ length: 20 }, () =>
        raw(url, { path: '/v1/approvals', headers: { authorization: 'Bearer nope' }, from: '127.0.0.3', agent }),
      ),
    );
    expect(wrong.filter((r) => r.status === 429)).toHaveLength(10);
    expect(
      (await raw(url, { path: '/v1/approvals', headers: { authorization: `Bearer ${secret}` }, from: '127.0.0.2' }))
        .status,
    ).toBe(200);
    expect((await signIn(secret, '127.0.0.2')).status).toBe(303);
    await waitFor('the window to end', async () => ((await signIn(secret)).status === 303 ? true : undefined), 15_000);
  } finally {
    agent.destroy();
  }
});

test('idle GET streams do not keep sessions alive: past --session-idle-timeout the sessions and their streams end and a new client gets in', async () => {
  server = await startHttp([
    '--http',
    '127.0.0.1:0',
    '--manifests',
    FIXTURE_MANIFESTS,
    '--max-sessions',
    '3',
    '--max-sessions-per-address',
    '3',
    '--session-idle-timeout',
    '400',
  ]);
  const h = server;
  const sessions = await Promise.all([0, 1, 2].map(() => openSession(h.url)));
  const streams = await Promise.all(sessions.map((s) => holdStream(h.url, s.id)));
  try {
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    expect((await health(h.url)).sessions.active).toBe(3);
    await waitFor('the idle sessions to end', async () =>
      (await health(h.url)).sessions.active === 0 ? true : undefined,
    );
    await Promise.all(streams.map((s) => s.ended)); // the server ended each stream with its session
    expect((await openSession(h.url, '127.0.0.2')).status).toBe(200);
  } finally {
    for (const s of streams) s.req.destroy();
  }
});

test('one address holds at most --max-sessions-per-address sessions: past it with all busy it gets a clear 429, another address still gets in', async () => {
  server = await startHttp([
    '--http',
    '127.0.0.1:0',
    '--manifests',
    FIXTURE_MANIFESTS,
    '--max-sessions',
    '4',
    '--max-sessions-per-address',
    '2',
  ]);
  const h = server;
  const a = await openSession(h.url);
  const b = await openSession(h.url);
  const calls = [holdCall(h.url, a.id), holdCall(h.url, b.id)];
  try {
    await waitFor('both sessions to be busy', async () => ((await health(h.url)).inFlight === 2 ? true : undefined));
    const refused = await openSession(h.url);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: {
        code: -32000,
        message: expect.stringContaining('too many MCP sessions from this address (2, --max-sessions-per-address)'),
      },
    });
    expect((await openSession(h.url, '127.0.0.2')).status).toBe(200);
  } finally {
    for (const c of calls) c.destroy();
  }
  // its sessions idle again: the address's own least recently used one makes room
  await waitFor('the calls to end', async () => ((await health(h.url)).inFlight === 0 ? true : undefined));
  expect((await openSession(h.url)).status).toBe(200);
  expect((await health(h.url)).sessions.active).toBe(3);
});

test('by default one address may hold half of --max-sessions (rounded up)', async () => {
  server = await startHttp(['--http', '127.0.0.1:0', '--manifests', FIXTURE_MANIFESTS, '--max-sessions', '3']);
  const body = JSON.parse((await raw(server.url, { path: '/healthz' })).body) as {
    sessions: { max: number; maxPerAddress: number };
  };
  expect(body.sessions).toMatchObject({ max: 3, maxPerAddress: 2 });
});
