// The gate serves many requests in a row. What it costs over bare undici is measured by `make bench`
// (bench/sections/17-http-gate-overhead.mjs): a median on a shared machine is no pass/fail rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpGate } from '../../host/src/sandbox/http/index.js';
import { startServer, type TestServer } from './http-test-servers.js';

const N = 200;
let server: TestServer;

beforeAll(async () => {
  server = await startServer('127.0.0.1', (_req, res) => res.end('ok'));
});
afterAll(async () => {
  await server.close();
});

describe('gate under repetition', () => {
  it(`the gate answers ${N} requests in a row on its pinned connections, each one whole`, async () => {
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    const never = new AbortController().signal;
    const url = server.url('/');
    for (let i = 0; i < N; i++) {
      const out = await gate.request({ method: 'GET', url, headers: {} }, never);
      expect(out.ok).toBe(true);
      if (out.ok) expect(new TextDecoder().decode(out.body)).toBe('ok');
    }
    expect(server.requests.length).toBe(N);
  });
});
