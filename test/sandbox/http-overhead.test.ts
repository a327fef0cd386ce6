// Measures what the gate costs per request over a bare undici request to the same local server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, request as undiciRequest } from 'undici';
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

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

describe('gate overhead', () => {
  it(`the gate answers ${N} requests in a row and its median overhead over bare undici stays small`, async () => {
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1024, timeoutMs: 5000 });
    const never = new AbortController().signal;
    const url = server.url('/');
    const bareKeepAlive: number[] = [];
    const bareFresh: number[] = [];
    const gated: number[] = [];
    for (let i = 0; i < N + 20; i++) {
      // Interleaved so that machine noise hits all three alike; the first 20 rounds are warm-up.
      let t = performance.now();
      const r1 = await undiciRequest(url);
      await r1.body.text();
      const d1 = performance.now() - t;

      t = performance.now();
      const client = new Client(server.url('').replace(/\/$/, ''));
      const r2 = await client.request({ path: '/', method: 'GET' });
      await r2.body.text();
      await client.destroy();
      const d2 = performance.now() - t;

      t = performance.now();
      const out = await gate.request({ method: 'GET', url, headers: {} }, never);
      const d3 = performance.now() - t;
      expect(out.ok).toBe(true);
      if (i >= 20) {
        bareKeepAlive.push(d1);
        bareFresh.push(d2);
        gated.push(d3);
      }
    }
    const [mk, mf, mg] = [median(bareKeepAlive), median(bareFresh), median(gated)];
    console.log(
      `median over ${N}: bare undici keep-alive ${(mk * 1000).toFixed(0)} µs, bare undici fresh connection ${(mf * 1000).toFixed(0)} µs, gate ${(mg * 1000).toFixed(0)} µs (overhead ${((mg - mk) * 1000).toFixed(0)} µs vs keep-alive, ${((mg - mf) * 1000).toFixed(0)} µs vs fresh)`,
    );
    expect(mg - mk).toBeLessThan(5);
  });
});
