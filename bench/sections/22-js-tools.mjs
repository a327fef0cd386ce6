// Tools in JavaScript (module.abi: component, docs/authoring-ts.md): a warm call of a JS tool against
// the same tool in Rust on the worker path, and the first call of a fresh `serve --stdio` serving one
// JS tool (with a warm home: the prepared module already cached) against a warm call of that server.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DEFAULT_LIMITS, loadSandboxTool } from '../../dist/sandbox/index.js';
import { ROOT } from '../lib/mcp.mjs';
import { never, timeCalls } from '../lib/sandbox-fixtures.mjs';

export const title = 'JavaScript tools: warm call vs Rust, first call of a fresh server';

const JS = join(ROOT, 'test/fixtures/build/js_hostile.wasm');
const RUST = join(ROOT, 'test/fixtures/build/js_echo_twin.wasm');
const ROUNDS = 3;
const WARM = 20;
/** Calls after the first 20 warm ones before the later sample: V8 is still compiling the engine's hot functions then. */
const SETTLE = 80;

function spec(name, file, over) {
  return {
    execution: { path: 'worker' },
    name,
    wasm: new Uint8Array(readFileSync(file)),
    entry: 'call',
    limits: { ...DEFAULT_LIMITS, maxPages: 512, timeoutMs: 20_000 },
    allowedHosts: [],
    allowedPaths: {},
    config: {},
    secretValues: [],
    ...over,
  };
}

async function warmCalls(ctx) {
  const input = new TextEncoder().encode(JSON.stringify({ mode: 'echo', text: 'hello' }));
  const js = await loadSandboxTool(spec('bench_js', JS, { abi: 'component' }));
  const rust = await loadSandboxTool(spec('bench_rust', RUST, {}));
  const signal = never();
  const lat = { js: [], rust: [] };
  try {
    const n = ctx.count(200, 4);
    for (let r = 0; r < ctx.count(5, 1); r++) {
      lat.js.push(...(await timeCalls(() => js.call(input, { signal }), n, r === 0 ? 50 : 10)));
      lat.rust.push(...(await timeCalls(() => rust.call(input, { signal }), n, r === 0 ? 50 : 10)));
    }
  } finally {
    await Promise.all([js.close(), rust.close()]);
  }
  return { js: ctx.summary(lat.js), rust: ctx.summary(lat.rust) };
}

const MANIFEST = `apiVersion: toolgate/v1
name: js_echo
version: 0.1.0
description: Echoes its text (a JavaScript tool).
module: { path: ${JSON.stringify(JS)}, abi: component }
parameters:
  mode: { type: string, required: true }
  text: { type: string }
output: { schema: { type: object } }
capabilities: { timeout_ms: 20000, memory: { max_pages: 512 } }
`;

/**
 * One fresh server: ms from spawn to the first call's answer, the first call alone, the 20 calls
 * after it, and 20 more after SETTLE further calls.
 */
async function freshServer(dir) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      join(ROOT, 'dist/cli/main.js'),
      'serve',
      '--stdio',
      '--manifests',
      join(dir, 'manifests'),
      '--policy-set',
      'dev',
    ],
    env: { ...process.env, TOOLGATE_HOME: join(dir, 'home') },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  const args = { name: 'js_echo', arguments: { mode: 'echo', text: 'hello' } };
  const c0 = performance.now();
  const first = await client.callTool(args);
  const firstMs = performance.now() - c0;
  const spawnToFirst = performance.now() - t0;
  if (first.isError) throw new Error(`first call failed: ${JSON.stringify(first.content)}`);
  const timed = async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const w0 = performance.now();
      await client.callTool(args);
      out.push(performance.now() - w0);
    }
    return out;
  };
  const warm = await timed(WARM);
  await timed(SETTLE);
  const later = await timed(WARM);
  await client.close();
  return { firstMs, spawnToFirst, warm, later };
}

export async function run(ctx) {
  const w = await warmCalls(ctx);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-js-'));
  const rows = [];
  try {
    const m = join(dir, 'manifests');
    mkdirSync(m);
    writeFileSync(join(m, 'js_echo.yaml'), MANIFEST);
    await freshServer(dir); // fills the home's prepared-module cache: the rounds below have a warm home
    for (let r = 0; r < ctx.count(ROUNDS, 1); r++) rows.push(await freshServer(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const firsts = ctx.summary(rows.map((r) => r.firstMs));
  const spawns = ctx.summary(rows.map((r) => r.spawnToFirst));
  const warm = ctx.summary(rows.flatMap((r) => r.warm));
  const later = ctx.summary(rows.flatMap((r) => r.later));
  const over = firsts.median - warm.median;
  return [
    'Tool: test/fixtures/js/js_hostile.js in echo mode (`{"mode":"echo","text":"hello"}` -> `{"echo":"hello"}`), a component of toolgate\'s world; its Rust twin test/fixtures/js_echo_twin.rs does the same with toolgate_pdk.rs. Worker path, 5 rounds of 200 calls each.',
    '',
    '| tool | median µs | p99 µs | calls |',
    '|---|---|---|---|',
    `| JavaScript (component) | ${ctx.fmt(w.js.median)} | ${ctx.fmt(w.js.p99)} | ${w.js.n} |`,
    `| Rust (Extism) | ${ctx.fmt(w.rust.median)} | ${ctx.fmt(w.rust.p99)} | ${w.rust.n} |`,
    '',
    `JS / Rust warm-call median: **${ctx.fmt(w.js.median / w.rust.median, 2)}x**.`,
    '',
    `First call of a fresh \`serve --stdio\` serving that one JS tool, warm home (prepared module cached), ${ROUNDS} servers, the client calling right after its tools/list; warm calls are the ${WARM} MCP calls after the first on each, and ${WARM} more after ${SETTLE} further calls:`,
    '',
    '| measure | median ms | min ms | max ms |',
    '|---|---|---|---|',
    `| first tools/call, right after tools/list (what of the load is not done yet, instance start, call) | ${ctx.fmt(firsts.median)} | ${ctx.fmt(firsts.min)} | ${ctx.fmt(firsts.max)} |`,
    `| spawn to first answer (start-up, connect, list, first call) | ${ctx.fmt(spawns.median)} | ${ctx.fmt(spawns.min)} | ${ctx.fmt(spawns.max)} |`,
    `| warm tools/call, calls 2-${WARM + 1} | ${ctx.fmt(warm.median, 2)} | ${ctx.fmt(warm.min, 2)} | ${ctx.fmt(warm.max, 2)} |`,
    `| warm tools/call, calls ${WARM + SETTLE + 2}-${2 * WARM + SETTLE + 1} | ${ctx.fmt(later.median, 2)} | ${ctx.fmt(later.min, 2)} | ${ctx.fmt(later.max, 2)} |`,
    '',
    `First call over a warm call (calls 2-${WARM + 1}): **${ctx.fmt(over)} ms** (goal <= 200 ms: ${over <= 200 ? 'met' : '**NOT met**'}).`,
    '',
    'The calls right after the first share the machine\'s two cores with V8 compiling the engine\'s hot functions on its background threads (docs/decisions.md, "JavaScript tools: the first call and the warm calls"); the later calls are past most of it.',
  ].join('\n');
}
