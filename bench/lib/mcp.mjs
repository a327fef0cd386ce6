// MCP over stdio for the bench: toolgate `serve --stdio` and the unsandboxed reference
// (baseline-server.mjs), started the same way and driven by the same SDK client.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { pinnedCommand } from './pin.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ECHO_WASM = join(ROOT, 'test/fixtures/build/server_spin.wasm');
const BASELINE = fileURLToPath(new URL('./baseline-server.mjs', import.meta.url));
/** 20 tools: 19 manifests of one WASM echo + toolgate's built-in native echo (`--builtin-tools`). */
export const TOOL_NAMES = ['wasm_echo', 'echo', ...Array.from({ length: 18 }, (_, i) => `echo_${i + 2}`)];
export const ARGS = { text: 'hello' };

function echoManifest(name, extra = []) {
  return [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    'version: 0.1.0',
    'description: Returns its arguments unchanged.',
    `module: { path: ${JSON.stringify(ECHO_WASM)}, entry: echo }`,
    'parameters:',
    '  text: { type: string, required: true }',
    'output: { schema: { type: object, properties: { text: { type: string } } } }',
    ...extra,
    '',
  ].join('\n');
}

/**
 * A folder with the 19 echo manifests (in manifests/), plus wasm_echo_worker: the same echo with an
 * allowed host it never uses, so its calls take the worker path (not counted in the 20 of a start).
 */
export function benchFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  mkdirSync(join(dir, 'manifests'));
  mkdirSync(join(dir, 'worker'));
  for (const name of TOOL_NAMES.filter((n) => n !== 'echo'))
    writeFileSync(join(dir, 'manifests', `${name}.yaml`), echoManifest(name));
  writeFileSync(
    join(dir, 'worker', 'wasm_echo_worker.yaml'),
    echoManifest('wasm_echo_worker', ['capabilities: { allowed_hosts: ["127.0.0.1:9"] }']),
  );
  return dir;
}

/**
 * kind: 'toolgate' | 'baseline'. toolgate runs the bundled command with no policy set (the
 * transport, the pipeline and the sandbox alone) and its own TOOLGATE_HOME (`home`). The baseline
 * serves `tools` echoes, or the tool list recorded in the JSON file `toolList` (baseline-server.mjs).
 * `cpu`: start the server on that CPU alone (pin.mjs).
 */
export function transport(
  kind,
  dir,
  { manifests = [join(dir, 'manifests')], home = join(dir, 'home'), tools, toolList, cpu } = {},
) {
  const args =
    kind === 'toolgate'
      ? [
          join(ROOT, 'dist/cli/main.js'),
          'serve',
          '--stdio',
          '--no-watch',
          ...manifests.flatMap((m) => ['--manifests', m]),
          '--policies',
          'none',
          '--builtin-tools',
        ]
      : [BASELINE, ...(toolList !== undefined ? [toolList] : tools === undefined ? [] : [String(tools)])];
  return new StdioClientTransport({
    ...pinnedCommand(cpu, process.execPath, args),
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOOLGATE_HOME: home },
    stderr: 'ignore',
  });
}

export async function connect(kind, dir, opts) {
  const t = transport(kind, dir, opts);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(t);
  return { client, pid: t.pid };
}

/** CPU time (user + system, all threads) a process has used, in µs. */
export function cpuMicros(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

/** Spawn -> initialize -> first tools/list answer (ms); then, if `call` names a tool, its first call (ms from spawn); `cpu`: the server's CPU time (ms, all threads) by then. */
export async function startup(kind, dir, opts = {}) {
  const t0 = performance.now();
  const { client, pid } = await connect(kind, dir, opts);
  const { tools } = await client.listTools();
  const listed = performance.now() - t0;
  if (tools.length < (opts.tools ?? TOOL_NAMES.length))
    throw new Error(`${kind}: expected ${opts.tools ?? TOOL_NAMES.length} tools, got ${tools.length}`);
  let called;
  if (opts.call !== undefined) {
    const r = await client.callTool({ name: opts.call, arguments: opts.args ?? ARGS });
    if (r.isError) throw new Error(`${kind} ${opts.call}: ${JSON.stringify(r.content)}`);
    called = performance.now() - t0;
  }
  const cpu = cpuMicros(pid) / 1000;
  await client.close();
  return { listed, called, cpu };
}

/**
 * Several server sessions side by side, called in turn: `warm` unmeasured calls each, then `n` timed
 * calls each in blocks of `block`, one session's block after another's, so that a change in the
 * machine's load (other processes on a shared box) lands on every session alike instead of on
 * whichever one happened to run then. `sessions`: [key, kind, tool name, transport options].
 * Returns, per key, the latencies (µs), the server's CPU per timed call (µs, all threads) and the
 * CPU per call of the first `early` warm-up calls (tier-up and lazy work included).
 */
export async function interleavedCalls(dir, sessions, { n, warm, block, early }) {
  const open = [];
  try {
    for (const [key, kind, name, opts] of sessions) open.push({ key, kind, name, ...(await connect(kind, dir, opts)) });
    const out = Object.fromEntries(open.map((s) => [s.key, { lat: [], cpu: 0, early: 0 }]));
    const one = async (s) => {
      const r = await s.client.callTool({ name: s.name, arguments: ARGS });
      if (r.isError) throw new Error(`${s.kind} ${s.name}: ${JSON.stringify(r.content)}`);
    };
    for (const s of open) {
      const c0 = cpuMicros(s.pid);
      for (let i = 0; i < early; i++) await one(s);
      out[s.key].early = (cpuMicros(s.pid) - c0) / early;
    }
    for (let done = early; done < warm; done += block)
      for (const s of open) for (let i = 0; i < block; i++) await one(s);
    for (let done = 0; done < n; done += block) {
      for (const s of open) {
        const c0 = cpuMicros(s.pid);
        for (let i = 0; i < block; i++) {
          const t0 = performance.now();
          await one(s);
          out[s.key].lat.push((performance.now() - t0) * 1000);
        }
        out[s.key].cpu += cpuMicros(s.pid) - c0;
      }
    }
    for (const s of open) out[s.key].cpu /= out[s.key].lat.length;
    return out;
  } finally {
    for (const s of open) await s.client.close();
  }
}
