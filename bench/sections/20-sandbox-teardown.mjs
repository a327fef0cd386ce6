// Cancellation: how fast an abort is answered, how late a deadline is answered, and how soon the next
// call is served by a fresh instance after a teardown.
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: abort, deadline overrun, fresh instance after teardown';

export async function run(ctx) {
  const ROUNDS = ctx.count(25, 2);
  const burnForever = Uint8Array.of(31); // 2^31 iterations: seconds of CPU
  const burnShort = Uint8Array.of(4);

  // abort-to-answer and the next call after the teardown it causes
  const abortTool = await loadSandboxTool(kitSpec('burn', { limits: { timeoutMs: 10_000 } }));
  await abortTool.call(burnShort, { signal: never() });
  const abortMs = [];
  const freshMs = [];
  for (let i = 0; i < ROUNDS; i++) {
    const ac = new AbortController();
    const p = abortTool.call(burnForever, { signal: ac.signal }).catch((e) => e);
    await ctx.sleep(20);
    const t0 = performance.now();
    ac.abort();
    const err = await p;
    abortMs.push(performance.now() - t0);
    if (err?.code !== 'ABORTED') throw new Error(`expected ABORTED, got ${err?.code ?? 'success'}`);
    const t1 = performance.now();
    await abortTool.call(burnShort, { signal: never() });
    freshMs.push(performance.now() - t1);
  }
  await abortTool.close();

  // deadline overrun: answered TIMEOUT how long after the deadline
  const DEADLINE = 100;
  const spinTool = await loadSandboxTool(kitSpec('spin', { limits: { timeoutMs: DEADLINE } }));
  const overrunMs = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const err = await spinTool.call(new Uint8Array(0), { signal: never() }).catch((e) => e);
    overrunMs.push(performance.now() - t0 - DEADLINE);
    if (err?.code !== 'TIMEOUT') throw new Error(`expected TIMEOUT, got ${err?.code ?? 'success'}`);
    await ctx.sleep(60); // let the background replacement start, as between real calls
  }
  await spinTool.close();

  // a cold start with no replacement warmed: first call of a fresh tool
  const coldMs = [];
  for (let i = 0; i < ctx.count(10, 2); i++) {
    const t = await loadSandboxTool(kitSpec('greet'));
    const t0 = performance.now();
    await t.call(new Uint8Array(0), { signal: never() });
    coldMs.push(performance.now() - t0);
    await t.close();
  }

  const a = ctx.summary(abortMs);
  const o = ctx.summary(overrunMs);
  const f = ctx.summary(freshMs);
  const c = ctx.summary(coldMs);
  return [
    `${ROUNDS} rounds each; milliseconds.`,
    '',
    '| measure | median ms | p99 ms | max ms | target |',
    '|---|---|---|---|---|',
    `| abort() to ABORTED answer (burn mid-call) | ${ctx.fmt(a.median, 2)} | ${ctx.fmt(a.p99, 2)} | ${ctx.fmt(a.max, 2)} | <= 20 (${a.median <= 20 ? 'met' : 'NOT met'}) |`,
    `| TIMEOUT answered after the deadline (spin, ${DEADLINE} ms) | ${ctx.fmt(o.median, 2)} | ${ctx.fmt(o.p99, 2)} | ${ctx.fmt(o.max, 2)} | <= 50 (${o.median <= 50 ? 'met' : 'NOT met'}) |`,
    `| next call after a teardown (replacement started in the background at teardown) | ${ctx.fmt(f.median, 2)} | ${ctx.fmt(f.p99, 2)} | ${ctx.fmt(f.max, 2)} | <= 50 (${f.median <= 50 ? 'met' : 'NOT met'}) |`,
    `| first call of a new tool (cold: worker + SDK + instantiate) | ${ctx.fmt(c.median, 2)} | ${ctx.fmt(c.p99, 2)} | ${ctx.fmt(c.max, 2)} | (reference) |`,
  ].join('\n');
}
