// The process-wide registry of toolgate's own listening sockets, and the HTTP gate refusing them.
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { isOwnListener, ownListenerCount, registerOwnListener } from '../../host/src/own-sockets/index.js';
import { createHttpGate } from '../../host/src/sandbox/http/index.js';
import { closeAll, startServer } from './http-test-servers.js';

const removers: (() => void)[] = [];
afterEach(() => {
  for (const remove of removers.splice(0)) remove();
});
const register = (address: string, port: number): void => void removers.push(registerOwnListener(address, port));

describe('own listening sockets', () => {
  it('a loopback bind covers every spelling of loopback and unspecified on that port only', () => {
    register('127.0.0.1', 4100);
    for (const a of ['127.0.0.1', '127.0.0.9', '::ffff:127.0.0.1', '::ffff:7f00:1', '::1', '0.0.0.0', '::'])
      expect(isOwnListener(a, 4100), a).toBe(true);
    expect(isOwnListener('127.0.0.1', 4101)).toBe(false);
    expect(isOwnListener('93.184.216.34', 4100)).toBe(false);
  });

  it('a wildcard bind covers every local interface address and the whole loopback range', () => {
    register('::', 4200);
    const local = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((i) => i.address));
    expect(local.length).toBeGreaterThan(0);
    for (const a of [...local, '127.3.2.1', '::1', '0.0.0.0']) expect(isOwnListener(a, 4200), a).toBe(true);
    expect(isOwnListener('93.184.216.34', 4200)).toBe(false);
  });

  it('a specific non-loopback bind covers that address (and its IPv4-mapped form), not the loopback range', () => {
    register('10.9.8.7', 4300);
    expect(isOwnListener('10.9.8.7', 4300)).toBe(true);
    expect(isOwnListener('::ffff:10.9.8.7', 4300)).toBe(true);
    expect(isOwnListener('127.0.0.1', 4300)).toBe(false);
  });

  it('removing a socket makes its port reachable again', () => {
    const before = ownListenerCount();
    const remove = registerOwnListener('127.0.0.1', 4400);
    expect(ownListenerCount()).toBe(before + 1);
    remove();
    remove();
    expect(ownListenerCount()).toBe(before);
    expect(isOwnListener('127.0.0.1', 4400)).toBe(false);
  });

  it('the HTTP gate refuses a listed own socket before a byte is sent, and allows it once removed', async () => {
    const server = await startServer('127.0.0.1', (_req, res) => res.end('reached'));
    try {
      const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
      const remove = registerOwnListener('127.0.0.1', server.port);
      const refused = await gate.request(
        { method: 'GET', url: `http://127.1:${server.port}/`, headers: {} },
        new AbortController().signal,
      );
      expect(refused).toEqual({ ok: false, error: expect.stringMatching(/own server/) as unknown as string });
      expect(server.connections()).toBe(0);
      remove();
      const allowed = await gate.request(
        { method: 'GET', url: server.url('/'), headers: {} },
        new AbortController().signal,
      );
      expect(allowed.ok).toBe(true);
      await gate.close();
    } finally {
      await closeAll([server]);
    }
  });
});
