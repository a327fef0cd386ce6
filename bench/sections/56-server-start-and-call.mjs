// Issue 15 items 2 and 3, side by side in one run with alternating rounds: spawn to the first
// tools/list with 20 tools, tools/call p50 of the native echo, and the server's CPU per WASM call,
// toolgate (`serve --stdio`, bundled command) against an unsandboxed MCP server (the SDK's
// low-level Server, same echo in-process). Run as a script with --baseline-server, this file is that server.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const TOOLS = 20;
const ARGS = { text: 'hello' };

export const title = 'Server: start-up, native call and CPU per call vs an unsandboxed MCP server';

async function baselineServer() {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
  const list = Array.from({ length: TOOLS }, (_, i) => ({
    name: i === 0 ? 'wasm_echo' : i === 1 ? 'echo' : `echo_${i}`,
    description: 'Returns its arguments unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  }));
  const names = new Set(list.map((t) => t.name));
  const server = new Server({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    if (!names.has(req.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    const args = req.params.arguments ?? {};
    if (typeof args.text !== 'string') return { isError: true, content: [{ type: 'text', text: 'text: must be a string' }] };
    const value = JSON.parse(JSON.stringify(args));
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false };
  });
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] === SELF && process.argv.includes('--baseline-server')) await baselineServer();

function manifestDir() {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-start-'));
  for (let i = 0; i < TOOLS - 1; i++) {
    const name = i === 0 ? 'wasm_echo' : `echo_${i + 1}`;
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

function transport(kind, dir) {
  // 19 manifests + the built-in echo = 20 tools; no policy set: the pipeline and the sandbox alone
  const args = kind === 'toolgate'
    ? [join(ROOT, 'dist/cli/main.js'), 'serve', '--stdio', '--no-watch', '--manifests', dir, '--policies', 'none', '--builtin-tools']
    : [SELF, '--baseline-server'];
  return new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOOLGATE_HOME: join(dir, 'home') },
    stderr: 'ignore',
  });
}

async function startup(kind, dir) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport(kind, dir));
  const { tools } = await client.listTools();
  const ms = performance.now() - t0;
  if (tools.length < TOOLS) throw new Error(`${kind}: expected ${TOOLS} tools, got ${tools.length}`);
  await client.close();
  return ms;
}

/** CPU time (user + system, all threads) a process has used, in µs. */
function cpuMicros(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

async function calls(kind, dir, name, n, warm) {
  const client = new Client({ name: 'bench', version: '1' });
  const t = transport(kind, dir);
  await client.connect(t);
  for (let i = 0; i < warm; i++) await client.callTool({ name, arguments: ARGS });
  const cpu0 = cpuMicros(t.pid);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: ARGS });
    out[i] = (performance.now() - t0) * 1000;
    if (r.isError) throw new Error(`${kind} ${name}: ${JSON.stringify(r.content)}`);
  }
  const cpu = (cpuMicros(t.pid) - cpu0) / n;
  await client.close();
  return { lat: out, cpu };
}

export async function run(ctx) {
  const dir = manifestDir();
  try {
    const N = Number(process.env.BENCH_SPEED_CALLS ?? 1000);
    const WARM = 200;
    const R = Number(process.env.BENCH_SERVER_STARTS ?? 10);
    const lat = { native: [], baseNative: [], wasm: [], baseWasm: [] };
    const cpu = { native: [], baseNative: [], wasm: [], baseWasm: [] };
    for (let round = 0; round < 2; round++) {
      for (const [key, kind, name] of [['native', 'toolgate', 'echo'], ['baseNative', 'baseline', 'echo'], ['wasm', 'toolgate', 'wasm_echo'], ['baseWasm', 'baseline', 'wasm_echo']]) {
        const r = await calls(kind, dir, name, N / 2, WARM);
        lat[key].push(...r.lat);
        cpu[key].push(r.cpu);
      }
    }
    const start = { toolgate: [], baseline: [] };
    for (let i = 0; i < R; i++) {
      start.toolgate.push(await startup('toolgate', dir));
      start.baseline.push(await startup('baseline', dir));
    }
    const med = (xs) => ctx.summary(xs).median;
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const row = (what, a, b, unit, goal, digits = 1) => {
      const ratio = a / b;
      const verdict = goal === undefined ? '' : ` (${ratio <= goal ? 'met' : 'NOT met'})`;
      return `| ${what} | ${ctx.fmt(a, digits)} ${unit} | ${ctx.fmt(b, digits)} ${unit} | **${ctx.fmt(ratio, 2)}x** | ${goal === undefined ? '' : `<= ${goal}x`}${verdict} |`;
    };
    return [
      `toolgate: the bundled \`dist/cli/main.js serve --stdio --policies none --builtin-tools\` with 19 manifests of one WASM echo (test/fixtures server_spin.wasm) + the built-in native echo. Unsandboxed: the SDK's low-level Server with the same 20 tools, echo done in-process. Same SDK client, stdio, sequential calls with \`{"text":"hello"}\`, ${N} measured calls per row after ${WARM} warm-up calls, in two alternating rounds; ${R} alternating starts. Server CPU is user + system time of the whole process (all threads) over the measured calls.`,
      '',
      '| measure | toolgate | unsandboxed SDK server | ratio | goal |',
      '|---|---|---|---|---|',
      row('spawn to first tools/list, 20 tools (median)', med(start.toolgate), med(start.baseline), 'ms', 1.3),
      row('tools/call p50, native echo through toolgate', med(lat.native), med(lat.baseNative), 'µs', 1.1),
      row('tools/call p50, WASM echo (item 1, reference here)', med(lat.wasm), med(lat.baseWasm), 'µs', undefined),
      row('server CPU per WASM call (all threads)', mean(cpu.wasm), mean(cpu.baseWasm), 'µs', undefined, 0),
      row('server CPU per native call', mean(cpu.native), mean(cpu.baseNative), 'µs', undefined, 0),
      '',
      `Start-up, all runs (ms): toolgate ${start.toolgate.map((x) => x.toFixed(0)).join(', ')}; unsandboxed ${start.baseline.map((x) => x.toFixed(0)).join(', ')}.`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
