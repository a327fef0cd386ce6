// Starts `toolgate serve` as a real child process and connects the SDK's own client to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURE_MANIFESTS = join(ROOT, 'test/fixtures/server-manifests');
const MAIN = join(ROOT, 'dist/cli/main.js');

/** The built binary (tests run what users run). */
export async function toolgateEntry(): Promise<string> {
  if (!existsSync(MAIN))
    throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` (or `make build`) first');
  if (!existsSync(join(ROOT, 'test/fixtures/build/server_spin.wasm')))
    throw new Error('run `make -C test/fixtures` first');
  return MAIN;
}

/** Threads of a process (the main thread, libuv/V8 helpers and one per live WASM instance). */
export function threadCount(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).length;
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'toolgate-server-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    TOOLGATE_HOME: join(tmpdir(), 'toolgate-server-test-home'),
    ...extra,
  };
}

export interface StdioServer {
  client: Client;
  pid: number;
  stderr(): string;
  close(): Promise<void>;
}

export async function startStdio(
  args: string[],
  opts: {
    capabilities?: ClientCapabilities;
    env?: Record<string, string>;
    setup?: (client: Client) => void;
    nodeArgs?: string[];
    cwd?: string;
  } = {},
): Promise<StdioServer> {
  const entry = await toolgateEntry();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(opts.nodeArgs ?? []), entry, 'serve', '--stdio', ...args],
    env: childEnv(opts.env),
    cwd: opts.cwd ?? ROOT,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: opts.capabilities ?? {} });
  opts.setup?.(client);
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('no pid');
  return { client, pid, stderr: () => err, close: () => client.close() };
}

export interface HttpProcess {
  proc: ChildProcess;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  stderr(): string;
  connect(opts?: {
    headers?: Record<string, string>;
    capabilities?: ClientCapabilities;
    setup?: (c: Client) => void;
  }): Promise<Client>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `serve --http ...`; resolves with the printed address, or rejects with the exit and stderr. */
export async function startHttp(
  args: string[],
  env: Record<string, string> = {},
  opts: { cwd?: string } = {},
): Promise<HttpProcess> {
  const entry = await toolgateEntry();
  const proc = spawn(process.execPath, [entry, 'serve', ...args], {
    cwd: opts.cwd ?? ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its address in time: ${err}`)), 15_000);
    proc.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)\/mcp/.exec(err);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`serve exited with ${String(code)}: ${err}${out}`), { exitCode: code, stderr: err }),
      );
    });
  });
  const clients: Client[] = [];
  return {
    proc,
    url,
    stderr: () => err,
    async connect(o = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: o.headers ?? {} },
      });
      const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: o.capabilities ?? {} });
      o.setup?.(client);
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.allSettled(clients.map((c) => c.close()));
      // one SIGTERM only: a test may have sent it already, and a second one ends the process hard
      if (proc.exitCode === null && proc.signalCode === null && !proc.killed) proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}

/** Runs the CLI to completion (for commands that exit: schema, or serve refusing to start). */
export async function runToolgate(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
  opts: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = await toolgateEntry();
  const proc = spawn(process.execPath, [entry, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const t = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
  clearTimeout(t);
  return { code, stdout, stderr };
}

/** Thread ids of a process right now. */
export function threadIds(pid: number): Set<string> {
  return new Set(readdirSync(`/proc/${pid}/task`));
}

/** CPU time (user + system) the process has used, in clock ticks (1/100 s on Linux). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU the process used over `ms`, as a fraction of one core. */
export async function cpuShare(pid: number, ms: number): Promise<number> {
  const a = cpuTicks(pid);
  await new Promise((r) => setTimeout(r, ms));
  return (cpuTicks(pid) - a) / (ms / 10);
}

export interface RawReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface RawOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client's own address (127.0.0.2 plays another client; Linux routes 127.0.0.0/8 to lo). */
  from?: string;
  agent?: Agent;
}

/** A raw HTTP request, so tests can send the headers (Host, Origin, session ids) a browser or an attacker would. */
export function rawRequest(url: string, opts: RawOptions): Promise<RawReply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers ?? {},
        ...(opts.from !== undefined ? { localAddress: opts.from } : {}),
        ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error('request timed out')));
    req.end(opts.body);
  });
}

/** The fixture module that writes a file when it runs ("nothing ran" is then a file that is absent). */
export const FS_TOOL = join(ROOT, 'test/fixtures/build/fs_tool.wasm');

/** A manifest for `writer`: `{cmd: "write /out/NAME yes"}` writes NAME into `out`, mounted rw at /out. */
export function writerManifest(out: string): string {
  return [
    'apiVersion: toolgate/v1',
    'name: writer',
    'version: 1.0.0',
    'description: Writes a file into /out (proves it ran).',
    `module: { path: ${FS_TOOL}, entry: fs_tool }`,
    'parameters: { cmd: { type: string, required: true } }',
    'input: { encoding: raw, parameter: cmd }',
    'output: { encoding: text }',
    `capabilities: { allowed_paths: { /out: { host: ${out}, mode: rw } } }`,
    '',
  ].join('\n');
}
