// A warm call through the sandbox vs the raw SDK on the same module, side by side in one run.
import createPlugin from '@extism/extism';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, kitWasm, never, timeCalls } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: warm call vs the raw Extism SDK';

export async function run(ctx) {
  const input = new TextEncoder().encode('world');
  const rows = [];
  const N = 3000;

  const tool = await loadSandboxTool(kitSpec('greet'));
  const signal = never();
  const sandbox = ctx.summary(await timeCalls(() => tool.call(input, { signal }), N, 1000));
  await tool.close();

  const main = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false });
  const mainThread = ctx.summary(await timeCalls(() => main.call('greet', input), N, 1000));
  await main.close();

  const worker = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false, runInWorker: true });
  const inWorker = ctx.summary(await timeCalls(() => worker.call('greet', input), Math.min(N, 1000), 200));
  await worker.close();

  rows.push(['toolgate sandbox (own worker + Atomics)', sandbox], ['SDK main thread (no isolation)', mainThread], ['SDK runInWorker: true', inWorker]);
  const vsWorker = sandbox.median / inWorker.median;
  const vsMain = sandbox.median / mainThread.median;
  return [
    'Module: test/fixtures/core_kit.wasm export `greet` (5-byte input, 20 host calls per call). Latency per call, µs.',
    '',
    '| path | median µs | p99 µs | calls |',
    '|---|---|---|---|',
    ...rows.map(([name, s]) => `| ${name} | ${ctx.fmt(s.median)} | ${ctx.fmt(s.p99)} | ${s.n} |`),
    '',
    `- sandbox / SDK runInWorker (median): **${ctx.fmt(vsWorker, 3)}x** (target <= 0.15x: ${vsWorker <= 0.15 ? 'met' : 'NOT met'})`,
    `- sandbox / SDK main thread (median): **${ctx.fmt(vsMain, 2)}x** (target <= 6x: ${vsMain <= 6 ? 'met' : 'NOT met'})`,
  ].join('\n');
}
