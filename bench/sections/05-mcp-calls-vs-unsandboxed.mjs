// Warm tools/call latency and server CPU per call, spawn to tools/list, idle instance RSS and the
// first http_request of a new instance (issue 15's goals; issue 27's goals 2, 3b and 5), every row
// side by side in one run with its goal: toolgate (`serve --stdio`, the bundled command, no policy
// set) against an unsandboxed MCP server (the SDK's low-level Server, the same echo in-process),
// driven by the same SDK client. The call rows run their servers side by side, called in turn a
// block at a time, so drift on a shared machine hits every side alike; start-up rows alternate.
// Verdicts are on the median of the per-round ratios.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstRequests, THINK_MS, WARM_CALLS } from '../lib/first-request.mjs';
import { benchFolder, connect, ECHO_WASM, interleavedCalls, ROOT, startup } from '../lib/mcp.mjs';
import { callCpu, onCpu } from '../lib/pin.mjs';

export const title =
  'MCP over stdio: warm calls, server CPU per call, start-up and idle instance memory vs an unsandboxed MCP server';

const env = (name, fallback) => Number(process.env[name] ?? fallback);

/**
 * Per round, the four sessions run side by side (fresh servers), called in turn a block at a time
 * (interleavedCalls): load from other processes then lands on every row of a round alike. With
 * `cpu`, the client and the servers all run on that CPU (pin.mjs: where a fresh server was woken
 * otherwise moved its whole round's p50).
 */
async function callRounds(ctx, dir, rounds, n, warm, block, early, cpu) {
  const sessions = [
    ['wasm', 'toolgate', 'wasm_echo', { cpu }],
    ['base', 'baseline', 'wasm_echo', { cpu }],
    ['native', 'toolgate', 'echo', { cpu }],
    ['worker', 'toolgate', 'wasm_echo_worker', { cpu, manifests: [join(dir, 'manifests'), join(dir, 'worker')] }],
  ];
  const out = Object.fromEntries(sessions.map(([k]) => [k, { lat: [], p50: [], cpu: [], early: [] }]));
  for (let r = 0; r < rounds; r++) {
    // the order rotates each round, so no row is always the first of a block turn
    const order = sessions.map((_, i) => sessions[(i + r) % sessions.length]);
    const got = await onCpu(cpu, () => interleavedCalls(dir, order, { n, warm, block, early }));
    for (const [key] of sessions) {
      out[key].lat.push(...got[key].lat);
      out[key].p50.push(ctx.summary(got[key].lat).median);
      out[key].cpu.push(got[key].cpu);
      out[key].early.push(got[key].early);
    }
  }
  return out;
}

/**
 * Spawn to first tools/list with 20 tools, alternating; `same`: the unsandboxed server serving
 * toolgate's own list (the SDK client compiles a validator per outputSchema, and the echo
 * manifests declare one where the reference's echoes do not).
 */
async function startRounds(dir, rounds) {
  const toolList = join(dir, 'toolgate-tools.json');
  const { client } = await connect('toolgate', dir);
  writeFileSync(toolList, JSON.stringify({ tools: (await client.listTools()).tools }));
  await client.close();
  const out = { toolgate: [], baseline: [], same: [] };
  for (let i = 0; i < rounds; i++) {
    out.toolgate.push((await startup('toolgate', dir)).listed);
    out.baseline.push((await startup('baseline', dir)).listed);
    out.same.push((await startup('baseline', dir, { toolList })).listed);
  }
  return out;
}

/** Spawn -> tools/list -> first call of an example tool, with an empty and with a filled prepared-module cache, alternating. */
async function cacheRounds(dir, rounds) {
  const opts = {
    manifests: [join(ROOT, 'manifests')],
    tools: 10,
    call: 'convert_units',
    args: { value: 1, from: 'km', to: 'mi' },
  };
  const warmHome = join(dir, 'cache-warm-home');
  await startup('toolgate', dir, { ...opts, home: warmHome }); // fills it
  const out = { cold: [], warm: [], coldList: [], warmList: [] };
  for (let i = 0; i < rounds; i++) {
    const coldHome = mkdtempSync(join(dir, 'cache-cold-'));
    const cold = await startup('toolgate', dir, { ...opts, home: coldHome });
    rmSync(coldHome, { recursive: true, force: true });
    const warm = await startup('toolgate', dir, { ...opts, home: warmHome });
    out.cold.push(cold.called);
    out.warm.push(warm.called);
    out.coldList.push(cold.listed);
    out.warmList.push(warm.listed);
  }
  return out;
}

function rssProbe(path, k) {
  const file = fileURLToPath(new URL('../lib/inline-rss-probe.mjs', import.meta.url));
  return Number(
    execFileSync(process.execPath, ['--expose-gc', file, path, String(k)], {
      encoding: 'utf8',
      timeout: 120_000,
    }).trim(),
  );
}

export async function run(ctx) {
  if (!existsSync(ECHO_WASM)) return 'Skipped: build the fixtures first (`make fixtures`).';
  const dir = benchFolder();
  try {
    const ROUNDS = ctx.count(env('BENCH_ROUNDS', 5), 1); // odd, so each median is one round's value
    const N = ctx.count(env('BENCH_CALLS', 3000), 4);
    // toolgate's CPU per call settles after ~1500 calls (V8 optimising its longer path on its
    // background threads, counted in the process's CPU); the first EARLY calls are reported apart
    const WARM = ctx.count(env('BENCH_WARM', 2000), 4);
    const EARLY = ctx.count(1000, 2);
    const BLOCK = ctx.count(100, 2);
    const STARTS = ctx.count(env('BENCH_STARTS', 9), 1);
    const NET = ctx.count(env('BENCH_NET_ROUNDS', 5), 1);
    const CPU = callCpu();
    const c = await callRounds(ctx, dir, ROUNDS, N, WARM, BLOCK, EARLY, CPU);
    const st = await startRounds(dir, STARTS);
    const cache = await cacheRounds(dir, ctx.count(Math.max(3, Math.round(STARTS / 2)), 1));
    const PROBED = ctx.count(32, 2);
    const rss = Array.from({ length: ctx.count(3, 1) }, () => rssProbe('auto', PROBED));
    const rssWorker = rssProbe('worker', ctx.count(8, 2));
    const net = await firstRequests(ctx, NET);
    return report(ctx, { c, st, cache, rss, rssWorker, net, ROUNDS, N, WARM, BLOCK, EARLY, STARTS, NET, CPU });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(ctx, m) {
  const med = (xs) => ctx.summary(xs).median;
  const ratios = (a, b) => a.map((x, i) => x / b[i]);
  const fmt = (x, d = 1) => ctx.fmt(x, d);
  const verdict = (ok) => (ok ? 'met' : '**NOT met**');
  const ratioRow = (what, a, b, unit, goal, d = 1) => {
    const r = med(ratios(a.per, b.per));
    return `| ${what} | ${fmt(a.value, d)} ${unit} | ${fmt(b.value, d)} ${unit} | ${fmt(r, 2)}x (rounds: ${ratios(
      a.per,
      b.per,
    )
      .map((x) => fmt(x, 2))
      .join(', ')}) | ${goal === undefined ? 'none set' : `<= ${goal}x: ${verdict(r <= goal)}`} |`;
  };
  const { c, st, cache, net } = m;
  const wasm = { value: med(c.wasm.lat), per: c.wasm.p50 };
  const base = { value: med(c.base.lat), per: c.base.p50 };
  const native = { value: med(c.native.lat), per: c.native.p50 };
  const cpuW = { value: med(c.wasm.cpu), per: c.wasm.cpu };
  const cpuB = { value: med(c.base.cpu), per: c.base.cpu };
  const cpuN = { value: med(c.native.cpu), per: c.native.cpu };
  const rss = med(m.rss);
  const netMed = (k) => med(net.map((r) => r[k]));
  const first = netMed('first') - netMed('warm');
  const repl = netMed('replacement') - netMed('warm');
  return [
    `toolgate: \`dist/cli/main.js serve --stdio --policies none --builtin-tools\` with 19 manifests of one WASM echo (test/fixtures server_spin.wasm; no network, no files: its calls run on the calling thread) + the built-in native echo = 20 tools. Unsandboxed: the SDK's low-level Server with the same 20 tools, echo in-process (bench/lib/baseline-server.mjs). Same SDK client, stdio, sequential \`tools/call\` of \`{"text":"hello"}\`: ${m.ROUNDS} rounds, each with a fresh server per row, the four servers of a round running side by side and called in turn ${m.BLOCK} calls at a time (the order rotating each round), so that load from other processes lands on every row alike; ${m.WARM} warm-up calls each (toolgate's CPU per call settles only after ~1500: V8 optimises its longer path on background threads, which the process's CPU counts; the first ${m.EARLY} calls' CPU is a reference row below), then ${m.N} timed calls each. ${m.CPU === undefined ? 'The scheduler places the client and the servers (BENCH_CALL_CPU=none, or no taskset).' : `The client and the servers of these rows run on CPU ${m.CPU} alone (taskset; BENCH_CALL_CPU=none leaves placement to the scheduler): whether a fresh server was woken on the client's core or the other one moved its whole round's p50 by 25-100 µs, the unsandboxed server's most.`} Server CPU is user + system time of the whole process (all threads) over its timed calls. The ratio is the median of the per-round ratios; the toolgate and unsandboxed columns are medians over all calls (CPU: over rounds).`,
    '',
    '| measure | toolgate | unsandboxed SDK server | ratio | goal |',
    '|---|---|---|---|---|',
    ratioRow('tools/call p50, WASM echo', wasm, base, 'µs', 1.2),
    ratioRow('tools/call p50, native echo through toolgate', native, base, 'µs', 1.1),
    ratioRow('server CPU per WASM call (all threads; issue 27.2)', cpuW, cpuB, 'µs', 0.5, 0),
    spreadRow(ctx, ratios(wasm.per, base.per)),
    ratioRow(
      'spawn to first tools/list, 20 tools',
      { value: med(st.toolgate), per: st.toolgate },
      { value: med(st.baseline), per: st.baseline },
      'ms',
      1.3,
    ),
    ratioRow(
      "spawn to first tools/list, 20 tools, vs the same server serving toolgate's tool list (reference)",
      { value: med(st.toolgate), per: st.toolgate },
      { value: med(st.same), per: st.same },
      'ms',
    ),
    `| idle pooled instance RSS (no network, no files; 32 tools of one module, one idle instance each, after gc; 3 processes: ${m.rss.map((x) => fmt(x, 2)).join(', ')}) | ${fmt(rss, 2)} MiB | | | <= 2 MiB: ${verdict(rss <= 2)} |`,
    `| idle worker-kept instance RSS (8 tools of one module kept in workers, one idle instance each, after gc; 1 process; issue 27.3) | ${fmt(m.rssWorker, 2)} MiB | | | <= 4 MiB: ${verdict(m.rssWorker <= 4)} |`,
    `| first \`http_request\` of a new instance: first call of a fresh server minus a warm call (fetch_url, ${m.NET} fresh servers) | ${fmt(netMed('first'))} ms (warm ${fmt(netMed('warm'))} ms): +${fmt(first)} ms | | | within 50 ms of a warm one: ${verdict(first <= 50)} |`,
    `| first \`http_request\` of a replacement instance (after a cancelled call tore one down) minus a warm call | ${fmt(netMed('replacement'))} ms: +${fmt(repl)} ms | | | within 50 ms of a warm one: ${verdict(repl <= 50)} |`,
    '',
    'Reference rows (no goal):',
    '',
    `- per-round p50 (µs), so an outlying round shows which side moved: WASM echo ${c.wasm.p50.map((x) => fmt(x, 0)).join(', ')}; native ${c.native.p50.map((x) => fmt(x, 0)).join(', ')}; unsandboxed ${c.base.p50.map((x) => fmt(x, 0)).join(', ')}.`,
    `- the same WASM echo kept in a worker (an allowed host it never uses): p50 ${fmt(med(c.worker.lat))} µs, ${fmt(med(ratios(c.worker.p50, c.base.p50)), 2)}x the unsandboxed server; CPU ${fmt(med(c.worker.cpu), 0)} µs/call.`,
    `- server CPU per call over the first ${m.EARLY} calls of a fresh server (tier-up and lazy start-up work included): WASM echo ${fmt(med(c.wasm.early), 0)} µs, unsandboxed ${fmt(med(c.base.early), 0)} µs (${fmt(med(ratios(c.wasm.early, c.base.early)), 2)}x).`,
    `- server CPU per native call: ${fmt(cpuN.value, 0)} µs vs ${fmt(cpuB.value, 0)} µs (${fmt(med(ratios(cpuN.per, cpuB.per)), 2)}x).`,
    `- p99 over all calls: WASM echo ${fmt(ctx.summary(c.wasm.lat).p99)} µs, native ${fmt(ctx.summary(c.native.lat).p99)} µs, unsandboxed ${fmt(ctx.summary(c.base.lat).p99)} µs.`,
    `- prepared-module cache (issue 15.3): spawn -> tools/list -> first call of convert_units (Rust, 126 KB) with the 10 example tools, ${cache.cold.length} alternating starts: empty cache ${fmt(med(cache.cold))} ms, filled cache ${fmt(med(cache.warm))} ms (${fmt(med(ratios(cache.warm, cache.cold)), 2)}x); to tools/list alone ${fmt(med(cache.coldList))} / ${fmt(med(cache.warmList))} ms (modules are prepared after the first tools/list, so the list does not wait for them).`,
    `- start-up, all runs (ms): toolgate ${st.toolgate.map((x) => x.toFixed(0)).join(', ')}; unsandboxed ${st.baseline.map((x) => x.toFixed(0)).join(', ')}; unsandboxed serving toolgate's list ${st.same.map((x) => x.toFixed(0)).join(', ')}.`,
    `- first http_request per round (first / replacement / warm ms; ${THINK_MS} ms think time after tools/list, ${WARM_CALLS} warm calls): ${net.map((r) => `${r.first.toFixed(0)} / ${r.replacement.toFixed(0)} / ${r.warm.toFixed(1)}`).join('; ')}.`,
  ].join('\n');
}

/**
 * Issue 27.5 asks that the WASM echo's per-call ratio stay within ±0.15 of its median across five
 * runs of `make bench`; one run can only show its own rounds' spread, which this row says.
 */
function spreadRow(ctx, rs) {
  const m = ctx.summary(rs).median;
  const off = Math.max(...rs.map((r) => Math.abs(r - m)));
  const verdict = off <= 0.15 ? 'met in this run' : '**NOT met** in this run';
  return `| spread of the WASM echo's per-round p50 ratios around their median (issue 27.5 asks it across five runs of \`make bench\`; this run's ${rs.length} rounds) | | | ±${ctx.fmt(off, 2)} (median ${ctx.fmt(m, 2)}x) | within ±0.15: ${verdict} |`;
}
