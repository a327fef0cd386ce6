// The first call of a fresh server and its memory after serving (issue 27's goals 1 and 3a), side
// by side in one run with their goals: a fresh `serve --stdio` serving the 10 example manifests
// against the unsandboxed SDK server serving as many tools (bench/lib/baseline-server.mjs), in
// alternating rounds. Verdicts are on the median of the per-round ratios. Reference rows (no goal)
// compare with the same SDK server serving toolgate's own tool list, whose output schemas the SDK
// client compiles inside the measured time (docs/decisions.md, issue 27). The per-call CPU row
// (goal 2) and the idle worker-kept instance (goal 3b) are in 05-mcp-calls-vs-unsandboxed.mjs, the
// worker-path warm call (goal 4) in 10-sandbox-warm-call.mjs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchFolder, connect, ROOT, startup } from '../lib/mcp.mjs';

export const title =
  'MCP over stdio: first call of a fresh server, and memory after serving, vs an unsandboxed MCP server';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const EXAMPLES = join(ROOT, 'manifests');
const FIRST = { manifests: [EXAMPLES], tools: 10, call: 'convert_units', args: { value: 1, from: 'km', to: 'mi' } };

/** One call of each example tool (fetch_url's host has no server: its call fails, its instance is made). */
const EXAMPLE_CALLS = [
  ['convert_units', { value: 1, from: 'km', to: 'mi' }],
  ['csv_to_json', { csv: 'a,b\n1,2\n' }],
  ['encode', { text: 'hello', scheme: 'base64' }],
  ['fetch_url', { url: 'http://127.0.0.1:8080/' }],
  ['greet', { name: 'bench' }],
  ['grep_files', { pattern: 'sandbox' }],
  ['hash', { text: 'abc' }],
  ['json_query', { json: '{"a":[1,2]}', path: '$.a[0]' }],
  ['markdown_to_text', { markdown: '# Title\n\nsome *text*' }],
  ['text_stats', { text: 'one two two three three three' }],
];

/**
 * toolgate's tool list and its answer to the first call, for an unsandboxed server serving the very
 * same definitions: the SDK client compiles a validator for every outputSchema a list holds (the
 * examples declare ten, the echoes none), work on the client's side that the echo reference never
 * has. Also fills the warm home's prepared-module and manifest caches.
 */
async function recordToolgate(dir, home) {
  const { client } = await connect('toolgate', dir, { ...FIRST, home });
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: FIRST.call, arguments: FIRST.args });
    const file = join(dir, 'toolgate-tools.json');
    writeFileSync(file, JSON.stringify({ tools, results: { [FIRST.call]: result } }));
    return file;
  } finally {
    await client.close();
  }
}

/** Spawn -> initialize -> tools/list -> first call answered (ms), warm home / unsandboxed / empty home / unsandboxed with toolgate's tool list, alternating. */
async function firstCallRounds(dir, rounds) {
  const warmHome = join(dir, 'warm-home');
  const toolList = await recordToolgate(dir, warmHome);
  const same = { tools: 10, toolList, call: FIRST.call, args: FIRST.args };
  const out = { warm: [], base: [], cold: [], same: [], cpu: { warm: [], base: [], cold: [], same: [] } };
  const take = (key, r) => {
    out[key].push(r.called);
    out.cpu[key].push(r.cpu);
  };
  for (let i = 0; i < rounds; i++) {
    take('warm', await startup('toolgate', dir, { ...FIRST, home: warmHome }));
    take('base', await startup('baseline', dir, { tools: 10, call: 'wasm_echo' }));
    const coldHome = mkdtempSync(join(dir, 'cold-home-'));
    take('cold', await startup('toolgate', dir, { ...FIRST, home: coldHome }));
    rmSync(coldHome, { recursive: true, force: true });
    take('same', await startup('baseline', dir, same));
  }
  return out;
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** RSS of a server once each of its 10 tools has been called once (MiB). */
async function servedRss(kind, dir, sleep) {
  const opts = kind === 'toolgate' ? { manifests: [EXAMPLES], home: join(dir, 'warm-home') } : { tools: 10 };
  const { client, pid } = await connect(kind, dir, opts);
  try {
    await client.listTools();
    const calls = kind === 'toolgate' ? EXAMPLE_CALLS : EXAMPLE_CALLS.map(() => ['wasm_echo', { text: 'hello' }]);
    for (const [name, args] of calls) await client.callTool({ name, arguments: args });
    await sleep(500); // the background warm-up and the replacement spares settle
    return rssMiB(pid);
  } finally {
    await client.close();
  }
}

export async function run(ctx) {
  const dir = benchFolder();
  try {
    const ROUNDS = ctx.count(env('BENCH_FIRST_ROUNDS', 7), 1); // odd, so each median is one round's value
    const RSS_ROUNDS = ctx.count(env('BENCH_RSS_ROUNDS', 3), 1);
    const first = await firstCallRounds(dir, ROUNDS);
    const rss = { toolgate: [], base: [] };
    for (let i = 0; i < RSS_ROUNDS; i++) {
      rss.toolgate.push(await servedRss('toolgate', dir, ctx.sleep));
      rss.base.push(await servedRss('baseline', dir, ctx.sleep));
    }
    return report(ctx, { first, rss, ROUNDS, RSS_ROUNDS });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(ctx, { first, rss, ROUNDS, RSS_ROUNDS }) {
  const med = (xs) => ctx.summary(xs).median;
  const ratios = (a, b) => a.map((x, i) => x / b[i]);
  const fmt = (x, d = 1) => ctx.fmt(x, d);
  const row = (what, a, b, unit, goal, d = 0) => {
    const rs = ratios(a, b);
    const r = med(rs);
    const verdict = goal === undefined ? 'reference' : `<= ${goal}x: ${r <= goal ? 'met' : '**NOT met**'}`;
    return `| ${what} | ${fmt(med(a), d)} ${unit} | ${fmt(med(b), d)} ${unit} | ${fmt(r, 2)}x (rounds: ${rs.map((x) => fmt(x, 2)).join(', ')}) | ${verdict} |`;
  };
  return [
    `toolgate: \`dist/cli/main.js serve --stdio --policies none --builtin-tools\` with the 10 example manifests (manifests/), its own TOOLGATE_HOME. Unsandboxed: the SDK's low-level Server serving 10 tools (bench/lib/baseline-server.mjs), echo in-process. Same SDK client over stdio. First call: spawn -> initialize -> tools/list -> first tools/call answered (toolgate: convert_units, Rust, 126 KB; unsandboxed: its echo), ${ROUNDS} alternating rounds of (toolgate with a warm home, unsandboxed, toolgate with an empty home, unsandboxed serving toolgate's list). The reference rows compare with the same SDK server serving toolgate's own tool list (the 10 definitions as toolgate lists them, output schemas included) and answering convert_units with toolgate's recorded result: the SDK client compiles a validator for each outputSchema in a list (client-side work in the measured time that the echo list, which has none, never causes). RSS: VmRSS of the server process once each of its 10 tools was called once (fetch_url's call fails: nothing listens on its allowed host) and 500 ms passed, ${RSS_ROUNDS} alternating rounds.`,
    '',
    '| measure | toolgate | unsandboxed SDK server | ratio | goal |',
    '|---|---|---|---|---|',
    row('first call of a fresh server, warm home (issue 27.1)', first.warm, first.base, 'ms', 1.3),
    row('first call of a fresh server, empty home (issue 27.1)', first.cold, first.base, 'ms', 1.6),
    row("first call, warm home, vs the same server serving toolgate's tool list", first.warm, first.same, 'ms'),
    row("first call, empty home, vs the same server serving toolgate's tool list", first.cold, first.same, 'ms'),
    row('RSS after serving the examples, each called once (issue 27.3)', rss.toolgate, rss.base, 'MiB', 1.5, 1),
    '',
    `- first call, all rounds (ms): warm home ${first.warm.map((x) => x.toFixed(0)).join(', ')}; empty home ${first.cold.map((x) => x.toFixed(0)).join(', ')}; unsandboxed ${first.base.map((x) => x.toFixed(0)).join(', ')}; unsandboxed serving toolgate's list ${first.same.map((x) => x.toFixed(0)).join(', ')}.`,
    `- server CPU (user + system, all threads) from spawn to the first call answered, medians (reference: less sensitive to the machine's load than wall time): warm home ${fmt(med(first.cpu.warm), 0)} ms (${fmt(med(ratios(first.cpu.warm, first.cpu.base)), 2)}x), empty home ${fmt(med(first.cpu.cold), 0)} ms (${fmt(med(ratios(first.cpu.cold, first.cpu.base)), 2)}x), unsandboxed ${fmt(med(first.cpu.base), 0)} ms, unsandboxed serving toolgate's list ${fmt(med(first.cpu.same), 0)} ms.`,
    `- RSS, all rounds (MiB): toolgate ${rss.toolgate.map((x) => x.toFixed(1)).join(', ')}; unsandboxed ${rss.base.map((x) => x.toFixed(1)).join(', ')}.`,
  ].join('\n');
}
