// What the HTTP gate (host checks, pinned connection, capped read) costs per request over bare undici
// to the same loopback server. Moved here from the test suite: a median on a shared machine is a
// figure to watch, not a pass/fail rule.
import { createServer } from 'node:http';
import { Client, request as undiciRequest } from 'undici';
import { createHttpGate } from '../../dist/sandbox/http/index.js';

export const title = 'HTTP gate: overhead per request over bare undici';

export async function run(ctx) {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}/`;
  const gate = createHttpGate({ allowedHosts: [`127.0.0.1:${port}`], maxResponseBytes: 1024, timeoutMs: 5000 });
  const signal = new AbortController().signal;
  const N = ctx.count(400, 4);
  const keepAlive = [];
  const fresh = [];
  const gated = [];
  const WARM = ctx.count(20, 2);
  for (let i = 0; i < N + WARM; i++) {
    // interleaved so that machine noise hits all three alike; the first WARM rounds are warm-up
    let t = performance.now();
    await (await undiciRequest(url)).body.text();
    const d1 = performance.now() - t;
    t = performance.now();
    const client = new Client(`http://127.0.0.1:${port}`);
    await (await client.request({ path: '/', method: 'GET' })).body.text();
    await client.destroy();
    const d2 = performance.now() - t;
    t = performance.now();
    const out = await gate.request({ method: 'GET', url, headers: {} }, signal);
    const d3 = performance.now() - t;
    if (!out.ok) throw new Error(`gate request failed: ${out.error}`);
    if (i >= WARM) {
      keepAlive.push(d1 * 1000);
      fresh.push(d2 * 1000);
      gated.push(d3 * 1000);
    }
  }
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  const [k, f, g] = [keepAlive, fresh, gated].map((xs) => ctx.summary(xs));
  const row = (name, s) => `| ${name} | ${ctx.fmt(s.median, 0)} | ${ctx.fmt(s.p99, 0)} | ${s.n} |`;
  return [
    'GET of a 2-byte body from a loopback server. µs per request.',
    '',
    '| path | median µs | p99 µs | requests |',
    '|---|---|---|---|',
    row('bare undici, keep-alive', k),
    row('bare undici, fresh connection', f),
    row('toolgate HTTP gate', g),
    '',
    `- gate overhead (median): ${ctx.fmt(g.median - k.median, 0)} µs over keep-alive, ${ctx.fmt(g.median - f.median, 0)} µs over a fresh connection (the old test bound: < 5000 µs over keep-alive)`,
  ].join('\n');
}
