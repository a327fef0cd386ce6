// MCP over stdio, side by side in one run: `toolgate serve --stdio` (policy pipeline + sandbox)
// against an unsandboxed MCP server (the SDK's low-level Server with the same echo done in-process),
// driven by the same client. Run as a script with --baseline-server, this file is that server.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const TOOLS = 20;

export const title = 'Server: MCP stdio call latency and startup vs an unsandboxed MCP server';

// ---- the baseline server (no pipeline, no sandbox) ----
async function baselineServer(tools) {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
  const list = Array.from({ length: tools }, (_, i) => ({
    name: i === 0 ? 'wasm_echo' : `echo_${i}`,
    description: 'Returns its arguments unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  }));
  const names = new Set(list.map((t) => t.name));
  const server = new Server({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    if (!names.has(req.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    const args = req.params.arguments ?? {};
    if (typeof args.text !== 'string') return { isError: true, content: [{ type: 'text', text: 'text: must be a string' }] };
    // the same work the WASM echo does: the arguments back as JSON, rendered as text
    const value = JSON.parse(JSON.stringify(args));
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false };
  });
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === SELF && process.argv.includes('--baseline-server')) {
  await baselineServer(TOOLS);
}

// ---- the measurements ----
function manifestDir() {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-server-'));
  for (let i = 0; i < TOOLS; i++) {
    const name = i === 0 ? 'wasm_echo' : `echo_${i}`;
    writeFileSync(
      join(dir, `${name}.yaml`),
      [
        'apiVersion: toolgate/v1',
        `name: ${name}`,
        'version: 0.1.0',
        'description: Returns its arguments unchanged.',
        `module: { path: ${JSON.stringify(WASM)}, entry: echo }`,
        'parameters:',
        '  text: { type: string, required: true }',
        'output: { schema: { type: object, properties: { text: { type: string } } } }',
        '',
      ].join('\n'),
    );
  }
  return dir;
}

async function entry() {
  return join(ROOT, 'dist/cli/main.js');
}

function transportFor(kind, toolgate, dir) {
  // The same measurement as before the shipped default set applied everywhere: the pipeline with
  // no policy set (--policies none), and the built-in echo served (--builtin-tools) for the native row.
  const args = kind === 'toolgate'
    ? [toolgate, 'serve', '--stdio', '--no-watch', '--manifests', dir, '--policies', 'none', '--builtin-tools']
    : [SELF, '--baseline-server'];
  // cwd is the temp folder: no ./manifests of the repo get picked up by default
  return new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOOLGATE_HOME: join(dir, 'home') },
    stderr: 'ignore',
  });
}

/** Spawn -> initialize -> first tools/list answer, in ms. */
async function startup(kind, toolgate, dir) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transportFor(kind, toolgate, dir));
  const { tools } = await client.listTools();
  const ms = performance.now() - t0;
  if (tools.length < TOOLS) throw new Error(`${kind}: expected ${TOOLS} tools, got ${tools.length}`);
  await client.close();
  return ms;
}

/** CPU time (user + system, all threads) a process has used, in µs. */
function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

async function latencies(kind, toolgate, dir, name, n, warm, cpu) {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = transportFor(kind, toolgate, dir);
  await client.connect(transport);
  const args = { text: 'hello' };
  for (let i = 0; i < warm; i++) await client.callTool({ name, arguments: args });
  const cpu0 = cpuMicros(transport.pid);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: args });
    out[i] = (performance.now() - t0) * 1000;
    if (r.isError) throw new Error(`${kind} ${name}: ${JSON.stringify(r.content)}`);
  }
  cpu.push((cpuMicros(transport.pid) - cpu0) / n);
  await client.close();
  return out;
}

export async function run(ctx) {
  if (!existsSync(WASM)) return 'Skipped: build the fixtures first (`make fixtures`).';
  const toolgate = await entry();
  const dir = manifestDir();
  try {
    const N = Number(process.env.BENCH_SERVER_CALLS ?? 2000);
    const WARM = 300;
    // alternate rounds so drift on a shared machine hits both sides alike
    const tg = [];
    const base = [];
    const native = [];
    const cpu = { tg: [], base: [], native: [] };
    for (let round = 0; round < 2; round++) {
      tg.push(...(await latencies('toolgate', toolgate, dir, 'wasm_echo', N / 2, WARM, cpu.tg)));
      base.push(...(await latencies('baseline', toolgate, dir, 'wasm_echo', N / 2, WARM, cpu.base)));
      native.push(...(await latencies('toolgate', toolgate, dir, 'echo', N / 4, WARM / 2, cpu.native)));
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const sTg = ctx.summary(tg);
    const sBase = ctx.summary(base);
    const sNative = ctx.summary(native);

    const R = Number(process.env.BENCH_SERVER_STARTS ?? 10);
    const tStart = [];
    const bStart = [];
    for (let i = 0; i < R; i++) {
      tStart.push(await startup('toolgate', toolgate, dir));
      bStart.push(await startup('baseline', toolgate, dir));
    }
    const stTg = ctx.summary(tStart);
    const stBase = ctx.summary(bStart);
    const callRatio = sTg.median / sBase.median;
    const startRatio = stTg.median / stBase.median;
    return [
      'No policy set is mounted (the servers run in an empty folder): this measures the transport, the pipeline and the sandbox.',
      `Same SDK client, stdio, sequential calls with \`{"text":"hello"}\`; ${N} measured calls per server after ${WARM} warm-up calls, in two alternating rounds. Latency per call, µs.`,
      '',
      '| server | median µs | p99 µs | mean µs | server CPU µs/call (all threads) | calls |',
      '|---|---|---|---|---|---|',
      `| toolgate serve --stdio, WASM echo (pipeline + sandbox) | ${ctx.fmt(sTg.median)} | ${ctx.fmt(sTg.p99)} | ${ctx.fmt(mean(tg))} | ${ctx.fmt(mean(cpu.tg), 0)} | ${sTg.n} |`,
      `| toolgate serve --stdio, builtin native echo (pipeline only) | ${ctx.fmt(sNative.median)} | ${ctx.fmt(sNative.p99)} | ${ctx.fmt(mean(native))} | ${ctx.fmt(mean(cpu.native), 0)} | ${sNative.n} |`,
      `| unsandboxed SDK Server, in-process echo | ${ctx.fmt(sBase.median)} | ${ctx.fmt(sBase.p99)} | ${ctx.fmt(mean(base))} | ${ctx.fmt(mean(cpu.base), 0)} | ${sBase.n} |`,
      '',
      `- tools/call, toolgate / unsandboxed (median): **${ctx.fmt(callRatio, 2)}x** (target <= 1.25x: ${callRatio <= 1.25 ? 'met' : 'NOT met'}); p99 ratio ${ctx.fmt(sTg.p99 / sBase.p99, 2)}x`,
      '',
      `Startup: spawn to the first tools/list answer with ${TOOLS} tools (toolgate: ${TOOLS} manifests of one module, read and registered before it serves; their modules compile in the background after the first tools/list, and a call that comes first waits for its own compile), ${R} alternating starts, ms.`,
      '',
      '| server | median ms | p99 ms | min ms |',
      '|---|---|---|---|',
      `| toolgate serve --stdio | ${ctx.fmt(stTg.median)} | ${ctx.fmt(stTg.p99)} | ${ctx.fmt(stTg.min)} |`,
      `| unsandboxed SDK Server | ${ctx.fmt(stBase.median)} | ${ctx.fmt(stBase.p99)} | ${ctx.fmt(stBase.min)} |`,
      '',
      `- startup, toolgate / unsandboxed (median): **${ctx.fmt(startRatio, 2)}x** (target <= 1.3x: ${startRatio <= 1.3 ? 'met' : 'NOT met'})`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
