// What an idle instance costs in RSS (alone in its worker, and sharing workers with other tools'),
// and whether a second instance doubles CPU-bound throughput.
import { execFileSync } from 'node:child_process';
import { loadSandboxTool } from '../../dist/sandbox/index.js';
import { kitSpec, never } from '../lib/sandbox-fixtures.mjs';

export const title = 'Sandbox: idle instance RSS, 1 vs 2 instances on a CPU-bound tool';

/** MiB each idle worker adds, measured in a fresh process (see bench/lib/rss-probe.mjs). */
function probe(mode) {
  const probeFile = new URL('../lib/rss-probe.mjs', import.meta.url);
  return Number(
    execFileSync(process.execPath, ['--expose-gc', probeFile.pathname, mode], {
      encoding: 'utf8',
      timeout: 60_000,
    }).trim(),
  );
}

export async function run(ctx) {
  // idle RSS: K instances (K overlapping calls) gone idle vs K workers that load nothing; 3 fresh
  // processes each, alternating
  const K = 8;
  const inst = [];
  const shared = [];
  const bare = [];
  for (let r = 0; r < ctx.count(3, 1); r++) {
    inst.push(probe('instance'));
    shared.push(probe('shared'));
    bare.push(probe('bare'));
  }
  const perInstance = ctx.summary(inst).median;
  const perShared = ctx.summary(shared).median;
  const floor = ctx.summary(bare).median;

  // throughput: the same batch of CPU-bound calls with 1 and with 2 instances
  const CALLS = ctx.count(8, 2);
  const work = Uint8Array.of(ctx.smoke ? 16 : 27); // 2^27 iterations per call
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
  for (let r = 0; r < ctx.count(3, 1); r++) {
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
    `| RSS per idle instance (${K} instances of one tool, each in a worker of its own, after gc; median of 3 processes: ${inst.map((x) => ctx.fmt(x, 2)).join(', ')}) | ${ctx.fmt(perInstance, 2)} MiB | <= 8 MiB (${perInstance <= 8 ? 'met' : 'NOT met'}) |`,
    `| RSS per idle instance (one instance of each of ${K} tools, sharing instance workers, after gc; median of 3 processes: ${shared.map((x) => ctx.fmt(x, 2)).join(', ')}) | ${ctx.fmt(perShared, 2)} MiB | <= 4 MiB, issue 27.3 (${perShared <= 4 ? 'met' : 'NOT met'}) |`,
    `| RSS per Node worker that loads nothing (the floor under an instance; median of 3: ${bare.map((x) => ctx.fmt(x, 2)).join(', ')}) | ${ctx.fmt(floor, 2)} MiB | (reference) |`,
    `| ${CALLS} calls of 2^27 loop iterations, 1 instance (median of 3) | ${ctx.fmt(o, 0)} ms (process used ${ctx.fmt(coresOf(1), 2)} cores) | |`,
    `| same, 2 instances (median of 3) | ${ctx.fmt(w, 0)} ms (process used ${ctx.fmt(coresOf(2), 2)} cores) | |`,
    `| speedup 2 vs 1 | **${ctx.fmt(speedup, 2)}x** | >= 1.7x (${speedup >= 1.7 ? 'met' : 'NOT met'}) |`,
    '',
    `Load average during this section: ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(
        ' / ',
      )}. "cores used" is process CPU time / wall time: with 2 instances the speedup can only reach what the OS grants this process on 2 shared cores.`,
  ].join('\n');
}
