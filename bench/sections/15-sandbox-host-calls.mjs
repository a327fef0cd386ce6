// Calls that make many host calls: the SDK's worker channel polls (architecture.md §8.4); toolgate's does not.
import createPlugin from '@extism/extism';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, kitWasm, never, timeCalls } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: calls with ~100 host calls each';

export async function run(ctx) {
  // greet with a 40-byte input: 1 + 40 input_load_u8 + 1 alloc + 47 store_u8 + 1 output_set = 90 host calls
  const input = new TextEncoder().encode('x'.repeat(40));
  const N = ctx.count(400, 4);
  const tool = await loadSandboxTool(kitSpec('greet'));
  const signal = never();
  const sandbox = ctx.summary(await timeCalls(() => tool.call(input, { signal }), N, ctx.count(100, 2)));
  await tool.close();
  const worker = await createPlugin({ wasm: [{ data: kitWasm }] }, { useWasi: false, runInWorker: true });
  const inWorker = ctx.summary(await timeCalls(() => worker.call('greet', input), N, ctx.count(50, 2)));
  await worker.close();
  const row = (name, s) => `| ${name} | ${ctx.fmt(s.median)} | ${ctx.fmt(s.p99)} | ${ctx.fmt(s.max)} | ${s.n} |`;
  return [
    'Module: core_kit.wasm `greet` with a 40-byte input (90 host calls per call). µs per call.',
    '',
    '| path | median µs | p99 µs | max µs | calls |',
    '|---|---|---|---|---|',
    row('toolgate sandbox (host calls run inside the worker)', sandbox),
    row('SDK runInWorker: true', inWorker),
    '',
    `- sandbox / SDK runInWorker (median): ${ctx.fmt(sandbox.median / inWorker.median, 3)}x; max: ${ctx.fmt(sandbox.max / inWorker.max, 3)}x`,
  ].join('\n');
}
