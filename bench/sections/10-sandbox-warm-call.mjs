// A warm call through the sandbox's worker path vs the raw SDK on the same module, side by side in
// one run: rounds in which the three paths take turns a block at a time (sandbox, SDK main thread,
// SDK runInWorker), each round's median, and the verdicts on the median of the per-round ratios,
// so drift on a shared machine hits all three alike. Every path first runs the same unmeasured
// rounds: the worker's code (the SDK's call path, the host functions) reaches its optimised tier
// only after ~1500 calls (docs/decisions.md "The worker path, sixth round"),
// and a first measured round inside that climb was the outlier of most runs.
import createPlugin from '@extism/extism';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, kitWasm, never, timeCalls } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: warm call vs the raw Extism SDK';

const ROUNDS = Number(process.env.BENCH_WORKER_ROUNDS ?? 5); // odd, so each median is one round's
/** Unmeasured rounds of every path before the measured ones (the same blocks, the same calls). */
const WARM_ROUNDS = Number(process.env.BENCH_WORKER_WARM_ROUNDS ?? 2);
/** Turns per round: each path runs 1/BLOCKS of its calls, then the next path. */
const BLOCKS = 10;
/** Unmeasured calls at the start of each path's turn (its caches after the other paths ran). */
const TURN_WARM = 5;

/** One round: the paths take BLOCKS turns; per path, the latencies of its calls (µs). */
async function round(paths) {
  const lat = paths.map(() => []);
  for (let b = 0; b < BLOCKS; b++)
    for (const [i, [, call, n]] of paths.entries()) lat[i].push(...(await timeCalls(call, n / BLOCKS, TURN_WARM)));
  return lat;
}

export async function run(ctx) {
  const input = new TextEncoder().encode('world');
  const N = ctx.count(1000, 2 * BLOCKS);
  const rounds = ctx.count(ROUNDS, 1);
  const warmRounds = ctx.count(WARM_ROUNDS, 1);
  const tool = await loadSandboxTool(kitSpec('greet'));
  const signal = never();
  const main = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false });
  const worker = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false, runInWorker: true });
  const paths = [
    ['toolgate sandbox (instance worker + Atomics)', () => tool.call(input, { signal }), N],
    ['SDK main thread (no isolation)', () => main.call('greet', input), N],
    ['SDK runInWorker: true', () => worker.call('greet', input), N / 2],
  ];
  const all = paths.map(() => []);
  const perRound = paths.map(() => []);
  const warmRound = paths.map(() => []);
  try {
    for (let r = 0; r < warmRounds; r++)
      (await round(paths)).forEach((lat, i) => warmRound[i].push(ctx.summary(lat).median));
    for (let r = 0; r < rounds; r++) {
      const lat = await round(paths);
      for (const [i, xs] of lat.entries()) {
        all[i].push(...xs);
        perRound[i].push(ctx.summary(xs).median);
      }
    }
  } finally {
    await Promise.all([tool.close(), main.close(), worker.close()]);
  }
  return report(ctx, { paths, all, perRound, warmRound, N, rounds, warmRounds });
}

function report(ctx, { paths, all, perRound, warmRound, N, rounds, warmRounds }) {
  const med = (xs) => ctx.summary(xs).median;
  const ratios = (a, b) => a.map((x, i) => x / b[i]);
  const vsWorker = ratios(perRound[0], perRound[2]);
  const vsMain = ratios(perRound[0], perRound[1]);
  const spread = (xs) => `${ctx.fmt(Math.min(...xs), 3)}-${ctx.fmt(Math.max(...xs), 3)}`;
  const verdict = (r, goal) => `<= ${goal}x: ${r <= goal ? 'met' : '**NOT met**'}`;
  return [
    `Module: test/fixtures/core_kit.wasm export \`greet\` (5-byte input, 20 host calls per call). Latency per call, µs. ${warmRounds} unmeasured rounds of every path, then ${rounds} measured rounds; in each round the three paths take ${BLOCKS} turns (${N / BLOCKS} sandbox, ${N / BLOCKS} main-thread, ${N / 2 / BLOCKS} runInWorker calls a turn, after ${TURN_WARM} unmeasured calls each).`,
    '',
    '| path | median µs (all calls) | per-round medians µs | unmeasured rounds µs | p99 µs | calls |',
    '|---|---|---|---|---|---|',
    ...paths.map(([name], i) => {
      const s = ctx.summary(all[i]);
      return `| ${name} | ${ctx.fmt(s.median)} | ${perRound[i].map((x) => ctx.fmt(x)).join(', ')} | ${warmRound[i].map((x) => ctx.fmt(x)).join(', ')} | ${ctx.fmt(s.p99)} | ${s.n} |`;
    }),
    '',
    '| measure | ratio (median of rounds) | rounds | spread | goal |',
    '|---|---|---|---|---|',
    `| worker-path warm call / SDK runInWorker (issue 27.4) | **${ctx.fmt(med(vsWorker), 3)}x** | ${vsWorker.map((x) => ctx.fmt(x, 3)).join(', ')} | ${spread(vsWorker)} | ${verdict(med(vsWorker), 0.15)} |`,
    `| worker-path warm call / SDK main thread | **${ctx.fmt(med(vsMain), 2)}x** | ${vsMain.map((x) => ctx.fmt(x, 2)).join(', ')} | ${spread(vsMain)} | ${verdict(med(vsMain), 6)} |`,
  ].join('\n');
}
