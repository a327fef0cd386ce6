// Issue 15.1, side by side in one run: tools/call over MCP stdio for a WASM echo on the calling
// thread (a tool with no network and no file access), the same echo kept in a worker (the same
// manifest plus an allowed host it never uses), and an unsandboxed SDK server; then the RSS of an
// idle pooled instance on each path. The baseline server is 50-server-mcp.mjs --baseline-server.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DEFAULT_LIMITS, loadSandboxTool } from '../../dist/sandbox/index.js';
import { never, timeCalls } from '../lib/sandbox-fixtures.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const BASELINE = fileURLToPath(new URL('./50-server-mcp.mjs', import.meta.url));

export const title = 'Calls on the calling thread (issue 15.1): MCP tools/call and idle instance RSS';

function manifest(name, extra) {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: Returns its arguments unchanged.',
    `module: { path: ${JSON.stringify(WASM)}, entry: echo }`,
    'parameters:',
    '  text: { type: string, required: true }',
    'output: { schema: { type: object, properties: { text: { type: string } } } }',
    ...extra,
    '',
  ].join('\n');
}

function manifestDir() {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-inline-'));
  writeFileSync(join(dir, 'wasm_echo.yaml'), manifest('wasm_echo', []));
  // an allowed host the echo never uses: the only difference is the path its calls take
  writeFileSync(join(dir, 'wasm_echo_worker.yaml'), manifest('wasm_echo_worker', ['capabilities: { allowed_hosts: ["127.0.0.1:9"] }']));
  return dir;
}

function transport(kind, dir) {
  const args = kind === 'baseline'
    ? [BASELINE, '--baseline-server']
    : [join(ROOT, 'dist/cli/main.js'), 'serve', '--stdio', '--no-watch', '--manifests', dir, '--policies', 'none'];
  return new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOOLGATE_HOME: join(dir, 'home') },
    stderr: 'ignore',
  });
}

async function latencies(kind, dir, tool, n, warm) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport(kind, dir));
  const args = { text: 'hello' };
  try {
    for (let i = 0; i < warm; i++) await client.callTool({ name: tool, arguments: args });
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await client.callTool({ name: tool, arguments: args });
      out[i] = (performance.now() - t0) * 1000;
      if (r.isError) throw new Error(`${kind} ${tool}: ${JSON.stringify(r.content)}`);
    }
    return out;
  } finally {
    await client.close();
  }
}

function rssProbe(path, k) {
  const file = fileURLToPath(new URL('../lib/inline-rss-probe.mjs', import.meta.url));
  return Number(execFileSync(process.execPath, ['--expose-gc', file, path, String(k)], { encoding: 'utf8', timeout: 120_000 }).trim());
}

/** SandboxTool.call of the same echo in this process, µs: the sandbox alone, without server or pipeline. */
async function sandboxCalls(path, n) {
  const wasm = new Uint8Array(readFileSync(WASM));
  const tool = await loadSandboxTool({ name: `echo_${path}`, wasm, entry: 'echo', limits: { ...DEFAULT_LIMITS }, allowedHosts: [], allowedPaths: {}, config: {}, secretValues: [], execution: { path } });
  const input = new TextEncoder().encode('{"text":"hello"}');
  try {
    const out = await timeCalls(() => tool.call(input, { signal: never() }), n, 300);
    const where = tool.paths();
    if (path === 'auto' && where.inThread !== n + 300) throw new Error(`expected every call on the calling thread: ${JSON.stringify(where)}`);
    return out;
  } finally {
    await tool.close();
  }
}

export async function run(ctx) {
  if (!existsSync(WASM)) return 'Skipped: build the fixtures first (`make fixtures`).';
  const dir = manifestDir();
  try {
    const N = Number(process.env.BENCH_INLINE_CALLS ?? 1000);
    const WARM = 200;
    const here = [];
    const worker = [];
    const base = [];
    // alternating rounds: drift on a shared machine hits all three alike
    for (let round = 0; round < 2; round++) {
      here.push(...(await latencies('toolgate', dir, 'wasm_echo', N / 2, WARM)));
      base.push(...(await latencies('baseline', dir, 'wasm_echo', N / 2, WARM)));
      worker.push(...(await latencies('toolgate', dir, 'wasm_echo_worker', N / 2, WARM)));
    }
    const sHere = ctx.summary(here);
    const sWorker = ctx.summary(worker);
    const sBase = ctx.summary(base);
    const ratio = sHere.median / sBase.median;
    const inHere = [];
    const inWorker = [];
    for (let round = 0; round < 2; round++) {
      inHere.push(...(await sandboxCalls('auto', 1000)));
      inWorker.push(...(await sandboxCalls('worker', 1000)));
    }
    const sInHere = ctx.summary(inHere);
    const sInWorker = ctx.summary(inWorker);
    const K = 32;
    const rssHere = [];
    const rssWorker = [];
    for (let r = 0; r < 3; r++) {
      rssHere.push(rssProbe('auto', K));
      rssWorker.push(rssProbe('worker', 8));
    }
    const mHere = ctx.summary(rssHere).median;
    const mWorker = ctx.summary(rssWorker).median;
    return [
      `Same SDK client, stdio, sequential \`tools/call\` of \`{"text":"hello"}\`, no policy set; ${N} measured calls per server after ${WARM} warm-up calls, two alternating rounds. µs per call.`,
      '',
      '| server | median µs | p99 µs | calls |',
      '|---|---|---|---|',
      `| toolgate, WASM echo on the calling thread (no network, no files) | ${ctx.fmt(sHere.median)} | ${ctx.fmt(sHere.p99)} | ${sHere.n} |`,
      `| toolgate, the same WASM echo in a worker (an allowed host it never uses) | ${ctx.fmt(sWorker.median)} | ${ctx.fmt(sWorker.p99)} | ${sWorker.n} |`,
      `| unsandboxed SDK Server, in-process echo | ${ctx.fmt(sBase.median)} | ${ctx.fmt(sBase.p99)} | ${sBase.n} |`,
      '',
      `- tools/call p50, calling thread / unsandboxed: **${ctx.fmt(ratio, 2)}x** (goal <= 1.2x: ${ratio <= 1.2 ? 'met' : 'NOT met'}); worker / unsandboxed: ${ctx.fmt(sWorker.median / sBase.median, 2)}x`,
      '',
      `The sandbox alone (SandboxTool.call of the same echo in this process, 2 x 1000 calls per path after 300 warm-up, alternating): calling thread median ${ctx.fmt(sInHere.median)} µs (p99 ${ctx.fmt(sInHere.p99)}), worker median ${ctx.fmt(sInWorker.median)} µs (p99 ${ctx.fmt(sInWorker.p99)}): the hop costs ${ctx.fmt(sInWorker.median - sInHere.median)} µs a call.`,
      '',
      '| idle pooled instance, tool with no network and no files (N tools of one module, one idle instance each, RSS after gc; 3 fresh processes) | MiB per instance | goal |',
      '|---|---|---|',
      `| on the calling thread, N = ${K} (${rssHere.map((x) => ctx.fmt(x, 2)).join(', ')}) | **${ctx.fmt(mHere, 2)}** | <= 2 MiB (${mHere <= 2 ? 'met' : 'NOT met'}) |`,
      `| in a worker, N = 8 (${rssWorker.map((x) => ctx.fmt(x, 2)).join(', ')}) | ${ctx.fmt(mWorker, 2)} | (reference) |`,
      '',
      'An instance on the calling thread is the plugin alone (its linear memory, the SDK\'s call context); one in a worker also holds a V8 isolate and a thread. The RSS difference per instance can come out below zero when the allocator returns more than one small instance adds: read it as "within noise of zero".',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
