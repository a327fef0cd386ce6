// What an idle instance costs in RSS, and whether a second instance doubles CPU-bound throughput.
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: idle instance RSS, 1 vs 2 instances on a CPU-bound tool';

async function rssAfterGc(ctx) {
  for (let i = 0; i < 3; i++) {
    ctx.gc();
    await ctx.sleep(50);
  }
  return process.memoryUsage().rss;
}

export async function run(ctx) {
  // idle RSS: start K instances (K overlapping calls), let them go idle, compare RSS
  const K = 8;
  // a tool kept open holds the process-wide spare worker, so the spare is in "before" and "after" alike
  const keeper = await loadSandboxTool(kitSpec('slow_echo', { pool: { max: 1 } }));
  await keeper.call(new Uint8Array(1), { signal: never() });
  await ctx.sleep(300);
  const before = await rssAfterGc(ctx);
  const tool = await loadSandboxTool(kitSpec('slow_echo', { pool: { max: K } }));
  await Promise.all(Array.from({ length: K }, () => tool.call(new Uint8Array(1), { signal: never() })));
  const live = tool.stats().live;
  await ctx.sleep(300); // the replacement spare has booted
  const after = await rssAfterGc(ctx);
  await tool.close();
  await keeper.close();
  const perInstance = (after - before) / live / (1024 * 1024);

  // throughput: the same batch of CPU-bound calls with 1 and with 2 instances
  const CALLS = 8;
  const work = Uint8Array.of(27); // 2^27 iterations per call
  const timeBatch = async (max) => {
    const t = await loadSandboxTool(kitSpec('burn', { pool: { max }, limits: { timeoutMs: 60_000 } }));
    await Promise.all(Array.from({ length: max }, () => t.call(Uint8Array.of(2), { signal: never() })));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CALLS }, () => t.call(work, { signal: never() })));
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    await t.close();
    cores.push([max, (cpu.user + cpu.system) / 1000 / ms]);
    return ms;
  };
  const cores = [];
  const one = [];
  const two = [];
  for (let r = 0; r < 3; r++) {
    one.push(await timeBatch(1));
    two.push(await timeBatch(2));
  }
  const o = ctx.summary(one).median;
  const w = ctx.summary(two).median;
  const speedup = o / w;
  const coresOf = (max) => ctx.summary(cores.filter(([m]) => m === max).map(([, c]) => c)).median;
  return [
    `| measure | value | target |`,
    '|---|---|---|',
    `| RSS per idle instance (${live} instances, after gc) | ${ctx.fmt(perInstance, 2)} MiB | <= 8 MiB (${perInstance <= 8 ? 'met' : 'NOT met'}) |`,
    `| ${CALLS} calls of 2^27 loop iterations, 1 instance (median of 3) | ${ctx.fmt(o, 0)} ms (process used ${ctx.fmt(coresOf(1), 2)} cores) | |`,
    `| same, 2 instances (median of 3) | ${ctx.fmt(w, 0)} ms (process used ${ctx.fmt(coresOf(2), 2)} cores) | |`,
    `| speedup 2 vs 1 | **${ctx.fmt(speedup, 2)}x** | >= 1.7x (${speedup >= 1.7 ? 'met' : 'NOT met'}) |`,
    '',
    `Load average during this section: ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' / ')}. "cores used" is process CPU time / wall time: with 2 instances the speedup can only reach what the OS grants this process on 2 shared cores.`,
  ].join('\n');
}
