// A warm call through the sandbox's worker path vs the raw SDK on the same module, side by side in
// one run: alternating rounds (sandbox, SDK main thread, SDK runInWorker), each round's median, and
// the verdicts on the median of the per-round ratios, so drift on a shared machine hits all three.
import createPlugin from '@extism/extism';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, kitWasm, never, timeCalls } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: warm call vs the raw Extism SDK';

const ROUNDS = Number(process.env.BENCH_WORKER_ROUNDS ?? 5); // odd, so each median is one round's

export async function run(ctx) {
  const input = new TextEncoder().encode('world');
  const N = ctx.count(1000, 4);
  const tool = await loadSandboxTool(kitSpec('greet'));
  const signal = never();
  const main = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false });
  const worker = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false, runInWorker: true });
  const paths = [
    ['toolgate sandbox (instance worker + Atomics)', () => tool.call(input, { signal }), N, 1000],
    ['SDK main thread (no isolation)', () => main.call('greet', input), N, 1000],
    ['SDK runInWorker: true', () => worker.call('greet', input), N / 2, 200],
  ];
  const all = paths.map(() => []);
  const perRound = paths.map(() => []);
  try {
    for (let r = 0; r < ctx.count(ROUNDS, 1); r++) {
      for (const [i, [, call, n, warm]] of paths.entries()) {
        const lat = await timeCalls(call, n, r === 0 ? warm : 50);
        all[i].push(...lat);
        perRound[i].push(ctx.summary(lat).median);
      }
    }
  } finally {
    await Promise.all([tool.close(), main.close(), worker.close()]);
  }
  const med = (xs) => ctx.summary(xs).median;
  const ratios = (a, b) => a.map((x, i) => x / b[i]);
  const vsWorker = ratios(perRound[0], perRound[2]);
  const vsMain = ratios(perRound[0], perRound[1]);
  const verdict = (r, goal) => `<= ${goal}x: ${r <= goal ? 'met' : '**NOT met**'}`;
  return [
    `Module: test/fixtures/core_kit.wasm export \`greet\` (5-byte input, 20 host calls per call). Latency per call, µs; ${ROUNDS} alternating rounds (${N} sandbox, ${N} main-thread, ${N / 2} runInWorker calls each).`,
    '',
    '| path | median µs (all calls) | per-round medians µs | p99 µs | calls |',
    '|---|---|---|---|---|',
    ...paths.map(([name], i) => {
      const s = ctx.summary(all[i]);
      return `| ${name} | ${ctx.fmt(s.median)} | ${perRound[i].map((x) => ctx.fmt(x)).join(', ')} | ${ctx.fmt(s.p99)} | ${s.n} |`;
    }),
    '',
    '| measure | ratio (median of rounds) | rounds | goal |',
    '|---|---|---|---|',
    `| worker-path warm call / SDK runInWorker (issue 27.4) | **${ctx.fmt(med(vsWorker), 3)}x** | ${vsWorker.map((x) => ctx.fmt(x, 3)).join(', ')} | ${verdict(med(vsWorker), 0.15)} |`,
    `| worker-path warm call / SDK main thread | **${ctx.fmt(med(vsMain), 2)}x** | ${vsMain.map((x) => ctx.fmt(x, 2)).join(', ')} | ${verdict(med(vsMain), 6)} |`,
  ].join('\n');
}
