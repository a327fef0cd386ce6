// The network warm-up: a gate loads undici and runs one request through it in the background, so a
// tool's first http_request does not pay for loading and first-running the HTTP stack (the time it
// saves is measured in `make bench`, section "Network"). These tests prove what it must not do.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from './http-test-servers.js';

let server: TestServer;
let privateTmp: string;
const realTmp = process.env.TMPDIR;

beforeAll(async () => {
  server = await startServer('127.0.0.1', (_req, res) => res.end('real'));
  privateTmp = mkdtempSync(join(tmpdir(), 'toolgate-warm-test-'));
});
afterAll(async () => {
  if (realTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = realTmp;
  rmSync(privateTmp, { recursive: true, force: true });
  await server.close();
});

/** A fresh copy of the gate modules: the warm-up runs once per process. */
async function freshGateModules() {
  vi.resetModules();
  const http = await import('../../host/src/sandbox/http/index.js');
  const warm = await import('../../host/src/sandbox/http/warm.js');
  return { ...http, ...warm };
}

describe('network warm-up', () => {
  it('a gate warms the HTTP stack over a private Unix socket: no TCP connection, nothing left in the temp folder', async () => {
    process.env.TMPDIR = privateTmp;
    const { createHttpGate, warmNetworkPath } = await freshGateModules();
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    expect(await warmNetworkPath()).toBe(true);
    expect(server.connections()).toBe(0);
    expect(readdirSync(privateTmp)).toEqual([]);
    // and the gate works as before, on its own connection to the checked address
    const out = await gate.request({ method: 'GET', url: server.url('/'), headers: {} }, new AbortController().signal);
    expect(out.ok && Buffer.from(out.body).toString()).toBe('real');
    expect(server.connections()).toBe(1);
    await gate.close();
  });

  it('a gate with no allowed host warms nothing: no request can leave it, so undici is not loaded for it', async () => {
    process.env.TMPDIR = privateTmp;
    const { createHttpGate, networkWarmStarted, warmNetworkPath } = await freshGateModules();
    const gate = createHttpGate({ allowedHosts: [], maxResponseBytes: 1024, timeoutMs: 5000 });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(networkWarmStarted()).toBe(false);
    // a gate that may reach a host still warms
    const other = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    await new Promise((r) => setImmediate(r));
    expect(networkWarmStarted()).toBe(true);
    await warmNetworkPath();
    await Promise.all([gate.close(), other.close()]);
  });

  it('a warm-up that cannot make its socket fails quietly, and the first request still works', async () => {
    process.env.TMPDIR = join(privateTmp, 'does-not-exist');
    const { createHttpGate, warmNetworkPath } = await freshGateModules();
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    expect(await warmNetworkPath()).toBe(false);
    const out = await gate.request({ method: 'GET', url: server.url('/'), headers: {} }, new AbortController().signal);
    expect(out.ok && Buffer.from(out.body).toString()).toBe('real');
    await gate.close();
  });
});
