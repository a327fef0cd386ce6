import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpGate,
  type HostLookup,
  type HttpOutcome,
  type HttpPolicy,
  type HttpRequestSpec,
} from '../../host/src/sandbox/http/index.js';
import { closeAll, startServer, text, type TestServer } from './http-test-servers.js';

const never = (): AbortSignal => new AbortController().signal;
const get = (url: string, headers: Record<string, string> = {}): HttpRequestSpec => ({ method: 'GET', url, headers });
const policy = (allowedHosts: string[], extra: Partial<HttpPolicy> = {}): HttpPolicy => ({
  allowedHosts,
  maxResponseBytes: 1024 * 1024,
  timeoutMs: 5000,
  ...extra,
});

function expectError(outcome: HttpOutcome, pattern: RegExp): void {
  expect(outcome.ok).toBe(false);
  if (!outcome.ok) expect(outcome.error).toMatch(pattern);
}

/** A resolver answering from a table, in the table's order, and recording each name asked. */
const staticLookup =
  (answers: Record<string, string[]>, calls: string[] = []): HostLookup =>
  async (hostname) => {
    calls.push(hostname);
    return (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

let a: TestServer; // 127.0.0.1: the allowed one
let b: TestServer; // 127.0.0.2: never listed; every test expects it to see nothing unless it says so
let a2: TestServer; // 127.0.0.1, another port
let v6: TestServer; // [::1]

beforeAll(async () => {
  a = await startServer('127.0.0.1', (req, res, seen) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/to-b') {
      res.writeHead(302, { location: b.url('/secret') }).end();
    } else if (u.pathname === '/to-a2') {
      res.writeHead(307, { location: a2.url('/landed') }).end();
    } else if (u.pathname === '/relative') {
      res.writeHead(301, { location: '/hello?from=relative' }).end();
    } else if (u.pathname === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (u.pathname === '/to-file') {
      res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    } else if (u.pathname === '/see-other') {
      res.writeHead(303, { location: a2.url('/after-post') }).end();
    } else if (u.pathname === '/hang') {
      // Never answers; the connection is closed by the test server's close().
    } else if (u.pathname === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part;'); // and then nothing more
    } else if (u.pathname === '/big-headers') {
      res.writeHead(200, { 'x-big': 'h'.repeat(20_000) }).end('unreachable');
    } else if (u.pathname === '/big-declared') {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      if (req.method === 'HEAD') res.end();
      else res.end(); // the client is expected to give up on the declaration alone
    } else if (u.pathname === '/echo') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ method: seen.method, headers: seen.headers, body: seen.body }));
    } else {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-test': 'a' }).end(`hello from a ${u.pathname}${u.search}`);
    }
  });
  b = await startServer('127.0.0.2', (_req, res) => res.end('secret from b'));
  a2 = await startServer('127.0.0.1', (req, res, seen) => {
    res.end(`a2 ${seen.method} ${req.url ?? ''} body=${seen.body}`);
  });
  v6 = await startServer('::1', (_req, res) => res.end('hello over v6'));
});

afterAll(async () => {
  await closeAll([a, b, a2, v6]);
  expect(b.requests).toHaveLength(0); // belt and braces: nothing ever reached the unlisted server
});

describe('allowed_hosts decides which host and port a module reaches', () => {
  it('an allowed host and port passes and returns status, headers and body', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(a.url('/hello')), never());
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.status).toBe(200);
    expect(out.headers['x-test']).toBe('a');
    expect(text(out.body)).toBe('hello from a /hello');
  });

  it('the same host on another port is refused before anything is sent', async () => {
    const seenBefore = a2.requests.length;
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(a2.url('/x')), never());
    expectError(out, new RegExp(`^host 127\\.0\\.0\\.1:${a2.port} is not in allowed_hosts$`));
    expect(a2.requests.length).toBe(seenBefore);
  });

  it('a host not listed is refused and its server sees zero requests', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(b.url('/')), never());
    expectError(out, new RegExp(`^host 127\\.0\\.0\\.2:${b.port} is not in allowed_hosts$`));
    expect(b.requests).toHaveLength(0);
  });

  it('an IPv6 literal listed with its port is reachable', async () => {
    const gate = createHttpGate(policy([v6.authority]));
    const out = await gate.request(get(v6.url('/')), never());
    expect(out.ok && text(out.body)).toBe('hello over v6');
  });

  it('only http and https schemes are accepted', async () => {
    const gate = createHttpGate(policy([a.authority, '*.example.com']));
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'ws://a.example.com/', 'gopher://a.example.com/']) {
      expectError(await gate.request(get(url), never()), /^scheme [a-z]+: is not allowed; only http and https$/);
    }
  });

  it('a URL with credentials is refused', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(`http://user:pw@${a.authority}/`), never());
    expectError(out, /credentials/);
  });

  it('an invalid URL is an error outcome, not a throw', async () => {
    const gate = createHttpGate(policy([a.authority]));
    expectError(await gate.request(get('not a url'), never()), /^invalid URL/);
  });

  it('a malformed request from a module is an error outcome, not a throw', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const bad = { method: 7, url: a.url('/'), headers: {} } as unknown as HttpRequestSpec;
    expectError(await gate.request(bad, never()), /^invalid request: method/);
    expectError(
      await gate.request({ ...get(a.url('/')), method: 'CONNECT' }, never()),
      /method "CONNECT" is not allowed/,
    );
  });

  it('an invalid allowed_hosts entry is a configuration error naming the entry', () => {
    expect(() => createHttpGate(policy(['ok.example.com', 'bad*.example.com']))).toThrow(
      /allowed_hosts\[1\] "bad\*\.example\.com": .*leftmost label/,
    );
  });
});

describe('every redirect hop is checked again', () => {
  it('a 302 from an allowed host to an unlisted host is refused and the target sees zero requests', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(a.url('/to-b')), never());
    expectError(
      out,
      new RegExp(
        `^redirect to http://127\\.0\\.0\\.2:${b.port}/secret refused: host 127\\.0\\.0\\.2:${b.port} is not in allowed_hosts$`,
      ),
    );
    expect(b.requests).toHaveLength(0);
  });

  it('a redirect from an allowed host to another allowed host is followed', async () => {
    const gate = createHttpGate(policy([a.authority, a2.authority]));
    const out = await gate.request(get(a.url('/to-a2')), never());
    expect(out.ok && text(out.body)).toBe('a2 GET /landed body=');
  });

  it('a relative Location is resolved against the current URL', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(get(a.url('/relative')), never());
    expect(out.ok && text(out.body)).toBe('hello from a /hello?from=relative');
  });

  it('a redirect loop stops after the hop limit', async () => {
    const gate = createHttpGate(policy([a.authority], { maxRedirects: 5 }));
    const before = a.requests.filter((r) => r.url === '/loop').length;
    const out = await gate.request(get(a.url('/loop')), never());
    expectError(out, /^too many redirects \(more than 5\)$/);
    expect(a.requests.filter((r) => r.url === '/loop').length - before).toBe(6); // first + 5 hops
  });

  it('a redirect to a non-http scheme is refused', async () => {
    const gate = createHttpGate(policy([a.authority]));
    expectError(
      await gate.request(get(a.url('/to-file')), never()),
      /^redirect to file:\/\/\/etc\/passwd refused: scheme file:/,
    );
  });

  it('a 303 after a POST continues as a GET without the body, and credentials stay with their origin', async () => {
    const gate = createHttpGate(policy([a.authority, a2.authority]));
    const out = await gate.request(
      {
        method: 'POST',
        url: a.url('/see-other'),
        headers: { 'content-type': 'text/plain', authorization: 'Bearer s3cret' },
        body: new TextEncoder().encode('payload'),
      },
      never(),
    );
    expect(out.ok && text(out.body)).toBe('a2 GET /after-post body=');
    const landed = a2.requests.find((r) => r.url === '/after-post');
    expect(landed?.headers.authorization).toBeUndefined();
    expect(a.requests.find((r) => r.url === '/see-other')?.body).toBe('payload');
  });
});

describe('names resolve once, to addresses that are checked, and the connection goes there', () => {
  it('localhost is refused when only a public-looking name is listed', async () => {
    const gate = createHttpGate(policy(['docs.example.com']));
    expectError(
      await gate.request(get(`http://localhost:${a.port}/`), never()),
      /^host localhost:\d+ is not in allowed_hosts$/,
    );
  });

  it('a listed name that resolves to loopback is refused unless that address is listed too', async () => {
    // The answer is given here, not read from this machine's /etc/hosts.
    const lookup = staticLookup({ localhost: ['127.0.0.1'] });
    const only = createHttpGate(policy([`localhost:${a.port}`], { lookup }));
    expect(await only.request(get(`http://localhost:${a.port}/`), never())).toEqual({
      ok: false,
      error: `localhost resolves to 127.0.0.1, a loopback address; list 127.0.0.1:${a.port} in allowed_hosts to allow it; allowed_hosts is ["localhost:${a.port}"]`,
    });
    const both = createHttpGate(policy([`localhost:${a.port}`, a.authority], { lookup }));
    const out = await both.request(get(`http://localhost:${a.port}/named`), never());
    expect(out.ok && text(out.body)).toBe('hello from a /named');
    // The Host header is the name, not the address.
    expect(a.requests.at(-1)?.headers.host).toBe(`localhost:${a.port}`);
  });

  it('a public name resolving to a private or metadata address is refused', async () => {
    const lookup = staticLookup({
      'internal.example.com': ['10.0.0.1'],
      'meta.example.com': ['169.254.169.254'],
      'mixed.example.com': ['10.0.0.9', '192.168.1.7'],
      'v6meta.example.com': ['fd00:ec2::254'],
    });
    const gate = createHttpGate(policy(['*.example.com:*'], { lookup }));
    expectError(
      await gate.request(get('http://internal.example.com/'), never()),
      /resolves to 10\.0\.0\.1, a private address/,
    );
    expectError(
      await gate.request(get('http://meta.example.com/'), never()),
      /resolves to 169\.254\.169\.254, a cloud metadata address/,
    );
    expectError(
      await gate.request(get('http://mixed.example.com/'), never()),
      /resolves to 10\.0\.0\.9, 192\.168\.1\.7, and none of them is allowed/,
    );
    expectError(
      await gate.request(get('http://v6meta.example.com/'), never()),
      /resolves to fd00:ec2::254, a cloud metadata address/,
    );
  });

  it('a DNS answer the host grammar cannot read (a zone id, a name, garbage) is refused, never connected to raw', async () => {
    const lookup = staticLookup({
      'zoned.example.com': ['::1%lo'],
      'linklocal.example.com': ['fe80::1%eth0'],
      'named.example.com': ['localhost'],
      'junk.example.com': ['127.0.0.1 extra'],
    });
    const gate = createHttpGate(policy(['*.example.com:*', `[::1]:${v6.port}`], { lookup }));
    const before = v6.requests.length;
    expectError(
      await gate.request(get(`http://zoned.example.com:${v6.port}/`), never()),
      /resolved to "::1%lo", which is not an IP address this sandbox can check/,
    );
    expectError(await gate.request(get('http://linklocal.example.com/'), never()), /resolved to "fe80::1%eth0"/);
    expectError(await gate.request(get('http://named.example.com/'), never()), /resolved to "localhost"/);
    expectError(await gate.request(get('http://junk.example.com/'), never()), /resolved to "127\.0\.0\.1 extra"/);
    expect(v6.requests.length).toBe(before);
  });

  it('an IP literal URL is refused unless that literal is listed, even when a name for it is', async () => {
    const gate = createHttpGate(policy([`localhost:${a.port}`, '*.example.com:*']));
    const before = a.requests.length;
    expectError(
      await gate.request(get(a.url('/')), never()),
      new RegExp(`^host 127\\.0\\.0\\.1:${a.port} is not in allowed_hosts$`),
    );
    expectError(
      await gate.request(get('http://169.254.169.254/latest/meta-data/'), never()),
      /^host 169\.254\.169\.254:80 is not in allowed_hosts$/,
    );
    expect(a.requests.length).toBe(before);
  });

  it('the address that was checked is the address connected to; the name is resolved once', async () => {
    // A rebinding resolver: the first answer is the listed loopback server, any later one is 127.0.0.2.
    const calls: string[] = [];
    const lookup: HostLookup = async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    const gate = createHttpGate(policy([`rebind.example.com:${a.port}`, a.authority], { lookup }));
    const out = await gate.request(get(`http://rebind.example.com:${a.port}/pinned`), never());
    expect(out.ok && text(out.body)).toBe('hello from a /pinned');
    expect(calls).toEqual(['rebind.example.com']);
    expect(b.requests).toHaveLength(0);
    expect(a.requests.at(-1)?.headers.host).toBe(`rebind.example.com:${a.port}`);
  });

  it('a name that does not resolve is an error outcome', async () => {
    const gate = createHttpGate(policy(['nowhere.example.com'], { lookup: staticLookup({}) }));
    expectError(
      await gate.request(get('http://nowhere.example.com/'), never()),
      /^cannot resolve nowhere\.example\.com/,
    );
  });
});

describe('a name is reached through whichever of its DNS answers the rules allow', () => {
  // Stock Debian maps `::1 localhost` before 127.0.0.1: the resolver's order is not the user's
  // intent, so each case below gives the answers itself and does not read /etc/hosts.
  const bothListed = (): string[] => [`localhost:${a.port}`, a.authority];

  it('a host whose first DNS answer is not allowed is reached through a later answer that is', async () => {
    const gate = createHttpGate(policy(bothListed(), { lookup: staticLookup({ localhost: ['::1', '127.0.0.1'] }) }));
    const out = await gate.request(get(`http://localhost:${a.port}/v6-first`), never());
    expect(out.ok && text(out.body)).toBe('hello from a /v6-first');
    expect(a.requests.at(-1)?.headers.host).toBe(`localhost:${a.port}`);
  });

  it('a host whose first DNS answer is allowed is reached through it, whatever the later answers are', async () => {
    const gate = createHttpGate(policy(bothListed(), { lookup: staticLookup({ localhost: ['127.0.0.1', '::1'] }) }));
    const out = await gate.request(get(`http://localhost:${a.port}/v4-first`), never());
    expect(out.ok && text(out.body)).toBe('hello from a /v4-first');
  });

  it('a host none of whose answers is allowed is refused, naming every answer', async () => {
    const before = a.requests.length;
    const v6Only = createHttpGate(policy(bothListed(), { lookup: staticLookup({ localhost: ['::1'] }) }));
    expect(await v6Only.request(get(`http://localhost:${a.port}/`), never())).toEqual({
      ok: false,
      error: `localhost resolves to ::1, a loopback address; list [::1]:${a.port} in allowed_hosts to allow it; allowed_hosts is ["localhost:${a.port}", "${a.authority}"]`,
    });
    const lookup = staticLookup({ localhost: ['::1', '127.0.0.2', 'fe80::1%eth0'] });
    const none = createHttpGate(policy(bothListed(), { lookup }));
    expect(await none.request(get(`http://localhost:${a.port}/`), never())).toEqual({
      ok: false,
      error:
        `localhost resolves to ::1, 127.0.0.2, "fe80::1%eth0", and none of them is allowed: ` +
        `::1 is a loopback address (list [::1]:${a.port} in allowed_hosts to allow it); ` +
        `127.0.0.2 is a loopback address (list 127.0.0.2:${a.port} in allowed_hosts to allow it); ` +
        `"fe80::1%eth0" is not an IP address this sandbox can check; ` +
        `allowed_hosts is ["localhost:${a.port}", "${a.authority}"]`,
    });
    expect(a.requests.length).toBe(before);
  });

  it('the chosen answer is the address the connection uses; a refused answer is never connected to', async () => {
    // A second server on the same port, on 127.0.0.2: whichever address the socket goes to answers.
    const twin = await startServer('127.0.0.2', (_req, res) => res.end('twin'), a.port);
    try {
      const lookup = staticLookup({ 'svc.example.com': ['127.0.0.2', '127.0.0.1'] });
      const toA = createHttpGate(policy([`svc.example.com:${a.port}`, a.authority], { lookup }));
      const viaA = await toA.request(get(`http://svc.example.com:${a.port}/chosen`), never());
      expect(viaA.ok && text(viaA.body)).toBe('hello from a /chosen');
      expect(twin.requests).toHaveLength(0);
      await toA.close();

      const toTwin = createHttpGate(policy([`svc.example.com:${a.port}`, twin.authority], { lookup }));
      const before = a.requests.length;
      const viaTwin = await toTwin.request(get(`http://svc.example.com:${a.port}/chosen`), never());
      expect(viaTwin.ok && text(viaTwin.body)).toBe('twin');
      expect(a.requests.length).toBe(before);
      await toTwin.close();
    } finally {
      await twin.close();
    }
  });

  it('a redirect hop chooses among its own answers again', async () => {
    const hop = await startServer('127.0.0.1', (req, res) => {
      res.writeHead(302, { location: `http://next.example.com:${a2.port}${req.url ?? '/'}` }).end();
    });
    try {
      const lookup = staticLookup({ 'next.example.com': ['::1', '127.0.0.1'] });
      const listed = [hop.authority, `next.example.com:${a2.port}`];
      const reached = createHttpGate(policy([...listed, a2.authority], { lookup }));
      const out = await reached.request(get(hop.url('/landed')), never());
      expect(out.ok && text(out.body)).toBe('a2 GET /landed body=');
      const refused = createHttpGate(policy(listed, { lookup }));
      expectError(
        await refused.request(get(hop.url('/landed')), never()),
        new RegExp(
          `^redirect to http://next\\.example\\.com:${a2.port}/landed refused: next\\.example\\.com resolves to ::1, 127\\.0\\.0\\.1, and none of them is allowed: `,
        ),
      );
    } finally {
      await hop.close();
    }
  });
});

describe('responses are bounded', () => {
  it('response headers larger than the parser limit are an error outcome', async () => {
    const gate = createHttpGate(policy([a.authority]));
    expectError(
      await gate.request(get(a.url('/big-headers')), never()),
      new RegExp(`^response headers from 127\\.0\\.0\\.1:${a.port} larger than 16384 bytes$`),
    );
  });

  it('a HEAD response may declare a length over the cap, since no body follows', async () => {
    const gate = createHttpGate(policy([a.authority], { maxResponseBytes: 1024 }));
    const head = await gate.request({ method: 'HEAD', url: a.url('/big-declared'), headers: {} }, never());
    expect(head.ok && head.headers['content-length']).toBe(String(10 * 1024 * 1024));
    expectError(await gate.request(get(a.url('/big-declared')), never()), /^response larger than 1024 bytes$/);
  });
});

describe('the module does not control framing or routing headers', () => {
  it('Host, Content-Length, Transfer-Encoding and Connection from the module are not sent', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const out = await gate.request(
      {
        method: 'POST',
        url: a.url('/echo'),
        headers: {
          Host: 'evil.example.com',
          'Content-Length': '1',
          'Transfer-Encoding': 'chunked',
          Connection: 'upgrade',
          'X-Ok': 'yes',
        },
        body: new TextEncoder().encode('hello body'),
      },
      never(),
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const echoed = JSON.parse(text(out.body)) as { headers: Record<string, string>; body: string };
    expect(echoed.headers.host).toBe(a.authority);
    expect(echoed.headers['content-length']).toBe('10');
    expect(echoed.headers['transfer-encoding']).toBeUndefined();
    expect(echoed.headers['x-ok']).toBe('yes');
    expect(echoed.body).toBe('hello body');
  });

  it('header values with line breaks, oversized headers and oversized bodies are refused before sending', async () => {
    const gate = createHttpGate(policy([a.authority], { maxRequestBytes: 16 }));
    const before = a.requests.length;
    expectError(await gate.request(get(a.url('/'), { 'x-a': 'v\r\nX-Injected: 1' }), never()), /line break/);
    expectError(
      await gate.request(get(a.url('/'), { 'x-big': 'v'.repeat(40_000) }), never()),
      /request headers larger than/,
    );
    expectError(
      await gate.request({ method: 'POST', url: a.url('/'), headers: {}, body: new Uint8Array(17) }, never()),
      /^request body larger than 16 bytes$/,
    );
    expect(a.requests.length).toBe(before);
  });
});

describe('time: every request has a deadline inside the call', () => {
  it('a server that never answers times out within timeoutMs plus a small margin', async () => {
    const gate = createHttpGate(policy([a.authority], { timeoutMs: 300 }));
    const t0 = performance.now();
    const out = await gate.request(get(a.url('/hang')), never());
    const elapsed = performance.now() - t0;
    expectError(out, /^request timed out after 300 ms$/);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1000);
  });

  it('a body that stalls mid-way times out too', async () => {
    const gate = createHttpGate(policy([a.authority], { timeoutMs: 300 }));
    const t0 = performance.now();
    expectError(await gate.request(get(a.url('/slow-body')), never()), /^request timed out after 300 ms$/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it("aborting the call's signal cancels the request at once", async () => {
    const gate = createHttpGate(policy([a.authority], { timeoutMs: 10_000 }));
    const controller = new AbortController();
    const t0 = performance.now();
    setTimeout(() => controller.abort(), 100);
    const out = await gate.request(get(a.url('/hang')), controller.signal);
    expectError(out, /^request aborted$/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('a signal already aborted sends nothing', async () => {
    const gate = createHttpGate(policy([a.authority]));
    const before = a.requests.length;
    expectError(await gate.request(get(a.url('/')), AbortSignal.abort()), /^request aborted$/);
    expect(a.requests.length).toBe(before);
  });

  it('a slow DNS answer does not hold the call past its deadline', async () => {
    const lookup: HostLookup = () => new Promise(() => undefined); // never answers
    const gate = createHttpGate(policy(['slow.example.com'], { timeoutMs: 200, lookup }));
    const t0 = performance.now();
    expectError(await gate.request(get('http://slow.example.com/'), never()), /^request timed out after 200 ms$/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
