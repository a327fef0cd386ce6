// Keep-alive reuse must never weaken the checks: a connection is reused only for a request whose
// own check produced the same origin and the same addresses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpGate, type HostLookup, type HttpPolicy } from '../../host/src/sandbox/http/index.js';
import { closeAll, startServer, text, type TestServer } from './http-test-servers.js';

let one: TestServer; // 127.0.0.1
let two: TestServer; // 127.0.0.2, same port number is not needed: names carry explicit ports
const never = (): AbortSignal => new AbortController().signal;

beforeAll(async () => {
  one = await startServer('127.0.0.1', (_req, res) => res.end('one'));
  two = await startServer('127.0.0.2', (_req, res) => res.end('two'));
});
afterAll(async () => {
  await closeAll([one, two]);
});

const waitFor = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('connection reuse follows the checked addresses', () => {
  it('consecutive requests to the same checked address reuse pooled connections', async () => {
    const gate = createHttpGate({ allowedHosts: [one.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    try {
      const before = one.connections();
      for (let i = 0; i < 10; i++) {
        const out = await gate.request({ method: 'GET', url: one.url(`/${i}`), headers: {} }, never());
        expect(out.ok && text(out.body)).toBe('one');
      }
      // undici may open a second socket while the first is being released; never one per request,
      // never more than the pool's 4.
      expect(one.connections() - before).toBeLessThanOrEqual(4);
    } finally {
      await gate.close();
    }
  });

  it('a later answer that fails the check is refused even though a pooled connection exists', async () => {
    const answers = ['127.0.0.1', '10.0.0.1', '127.0.0.1'];
    const lookup: HostLookup = async () => {
      const address = answers.shift() ?? '203.0.113.1';
      return [{ address, family: 4 }];
    };
    const policy: HttpPolicy = {
      allowedHosts: [`svc.example.com:${one.port}`, one.authority],
      maxResponseBytes: 1024,
      timeoutMs: 5000,
      lookup,
    };
    const gate = createHttpGate(policy);
    const url = `http://svc.example.com:${one.port}/`;
    const seen = one.requests.length;
    expect(await gate.request({ method: 'GET', url, headers: {} }, never())).toMatchObject({ ok: true });
    expect(await gate.request({ method: 'GET', url, headers: {} }, never())).toEqual({
      ok: false,
      error: `svc.example.com resolves to 10.0.0.1, a private address; list 10.0.0.1:${one.port} in allowed_hosts to allow it; allowed_hosts is ["svc.example.com:${one.port}", "${one.authority}"]`,
    });
    expect(await gate.request({ method: 'GET', url, headers: {} }, never())).toMatchObject({ ok: true });
    expect(one.requests.length - seen).toBe(2);
    await gate.close();
  });

  it('a changed answer gets a connection to the new address, never the pooled one', async () => {
    // Both addresses are listed; the name moves from one to two between requests.
    const answers = ['127.0.0.1', '127.0.0.2'];
    const lookup: HostLookup = async () => [{ address: answers.shift() ?? '203.0.113.1', family: 4 }];
    const port = one.port;
    const moved = await startServer('127.0.0.2', (_req, res) => res.end('moved'));
    try {
      // The same port on 127.0.0.2 cannot be guaranteed free, so the name is listed with `:*`.
      const gate = createHttpGate({
        allowedHosts: ['svc.example.com:*', `127.0.0.1:${port}`, `127.0.0.2:*`],
        maxResponseBytes: 1024,
        timeoutMs: 5000,
        lookup,
      });
      const first = await gate.request({ method: 'GET', url: `http://svc.example.com:${port}/`, headers: {} }, never());
      expect(first.ok && text(first.body)).toBe('one');
      // Second request, same URL, new answer: it must go to 127.0.0.2:port (nothing listens there
      // unless the moved server happens to have that port), never over the pooled socket to one.
      const before = one.requests.length;
      const second = await gate.request(
        { method: 'GET', url: `http://svc.example.com:${port}/`, headers: {} },
        never(),
      );
      expect(one.requests.length).toBe(before);
      if (moved.port === port) expect(second.ok && text(second.body)).toBe('moved');
      else expect(second).toEqual({ ok: false, error: `connection to svc.example.com:${port} refused` });
      await gate.close();
    } finally {
      await moved.close();
    }
  });

  it('close() drops the connections the gate holds', async () => {
    const gate = createHttpGate({ allowedHosts: [one.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    expect(await gate.request({ method: 'GET', url: one.url('/'), headers: {} }, never())).toMatchObject({ ok: true });
    await waitFor(() => one.openConnections() >= 1);
    expect(one.openConnections()).toBeGreaterThanOrEqual(1);
    await gate.close();
    await waitFor(() => one.openConnections() === 0);
    expect(one.openConnections()).toBe(0);
  });
});
