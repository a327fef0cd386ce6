// Shared test scaffolding for the registry: temp dirs, tool folders built from the WAT fixtures,
// the shipped command (dist/cli/main.js, the esbuild bundle users run) or an in-process CliIO for
// a terminal prompt, a static HTTP server and a real OCI registry (Debian docker-registry), all on
// 127.0.0.1 and all cleaned up by the caller.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, normalize, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import type { CliIO, Command, ExitCode } from '../../host/src/cli/command.js';
import { runShipped } from '../support/shipped-cli.js';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = resolve(here, '../fixtures/registry');

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `tg-reg-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Builds test/fixtures/registry/<name>.wat with wabt into `outDir`. */
export function buildWat(name: string, outDir: string): string {
  const out = join(outDir, `${name}.wasm`);
  execFileSync('/usr/bin/wat2wasm', ['--enable-all', join(FIXTURES, `${name}.wat`), '-o', out]);
  return out;
}

export interface ToolSpec {
  name?: string;
  version: string;
  wasm: string;
  hosts?: string[];
  paths?: Record<string, { host: string; mode: 'ro' | 'rw'; max_bytes?: number; max_entries?: number }>;
  maxPages?: number;
  timeoutMs?: number;
  secrets?: string[];
  maxInputBytes?: number;
  config?: Record<string, string>;
  poolMax?: number;
  readme?: string;
  /** What the model reads; default a plain sentence. */
  description?: string;
  /** More manifest lines (e.g. parameters:), appended as written. */
  extraYaml?: string[];
}

/**
 * A tool author's folder: manifest.yaml, README.md and a copy of the module (a published module
 * must be inside its tool's folder).
 */
export function writeToolDir(dir: string, spec: ToolSpec): string {
  mkdirSync(dir, { recursive: true });
  const moduleFile = basename(spec.wasm);
  copyFileSync(spec.wasm, join(dir, moduleFile));
  const name = spec.name ?? 'registry_echo';
  const lines = [
    'apiVersion: toolgate/v1',
    `name: ${name}`,
    `version: ${spec.version}`,
    `description: ${JSON.stringify(spec.description ?? 'Echo tool used by the registry tests.')}`,
    'module:',
    `  path: ${JSON.stringify(`./${moduleFile}`)}`,
    '  entry: registry_echo',
    'capabilities:',
    `  allowed_hosts: ${JSON.stringify(spec.hosts ?? [])}`,
    `  allowed_paths: ${JSON.stringify(spec.paths ?? {})}`,
    `  memory: { max_pages: ${spec.maxPages ?? 16} }`,
    `  timeout_ms: ${spec.timeoutMs ?? 2000}`,
    `  secrets: ${JSON.stringify(spec.secrets ?? [])}`,
    ...(spec.maxInputBytes !== undefined ? [`  max_input_bytes: ${spec.maxInputBytes}`] : []),
    ...(spec.config !== undefined ? [`  config: ${JSON.stringify(spec.config)}`] : []),
    ...(spec.poolMax !== undefined ? [`pool: { max: ${spec.poolMax} }`] : []),
    ...(spec.extraYaml ?? []),
    '',
  ];
  writeFileSync(join(dir, 'manifest.yaml'), lines.join('\n'));
  writeFileSync(join(dir, 'README.md'), spec.readme ?? `# ${name}\n\nA test tool.\n`);
  return dir;
}

export interface TestIO {
  io: CliIO;
  out(): string;
  err(): string;
  stdin: PassThrough;
}

export function makeIO(opts: {
  home: string;
  cwd: string;
  isTTY?: boolean;
  stdin?: string;
  env?: Record<string, string>;
}): TestIO {
  let out = '';
  let err = '';
  const stdin = new PassThrough();
  if (opts.stdin !== undefined) stdin.end(opts.stdin);
  const io: CliIO = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    stdin,
    isTTY: opts.isTTY ?? false,
    env: { TOOLGATE_HOME: opts.home, ...(opts.env ?? {}) },
    cwd: opts.cwd,
  };
  return { io, out: () => out, err: () => err, stdin };
}

export interface Ran {
  code: ExitCode;
  out: string;
  err: string;
}

/**
 * Runs `command` as users do: the shipped bundle in a child process (test/support/shipped-cli.ts),
 * with only PATH and the test's TOOLGATE_HOME and env. A terminal prompt (isTTY) is answered
 * in-process; the packed-tarball test answers one through a real pseudo-terminal.
 */
export async function run(command: Command, argv: string[], opts: Parameters<typeof makeIO>[0]): Promise<Ran> {
  if (opts.isTTY === true) {
    const t = makeIO(opts);
    const code = await command.run(argv, t.io);
    return { code, out: t.out(), err: t.err() };
  }
  const r = await runShipped([...command.path, ...argv], {
    cwd: opts.cwd,
    env: { TOOLGATE_HOME: opts.home, ...(opts.env ?? {}) },
    stdin: opts.stdin ?? '',
  });
  return { code: r.code as ExitCode, out: r.out, err: r.err };
}

export interface StaticServer {
  url: string;
  close(): Promise<void>;
  hits: string[];
}

/** Serves files under `root` read-only on 127.0.0.1 (a static HTTP index host). */
export async function serveStatic(
  root: string,
  opts: { status?: number; redirects?: Record<string, string> } = {},
): Promise<StaticServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    hits.push(path);
    const target = opts.redirects?.[path];
    if (target !== undefined) {
      res.writeHead(302, { location: target }).end();
      return;
    }
    if (opts.status !== undefined) {
      res.writeHead(opts.status).end();
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-length': body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface OciRegistry {
  host: string;
  storage: string;
  close(): Promise<void>;
}

/**
 * Starts Debian's docker-registry (distribution 2.8) on 127.0.0.1 with storage in a temp dir:
 * the anonymous config docs/registry.md shows, or `base` (a parsed config.yml) with its storage
 * folder and address moved to the temp dir and a free port.
 */
export async function startRegistry(base?: Record<string, unknown>): Promise<OciRegistry> {
  const dir = tempDir('oci');
  const storage = join(dir, 'data');
  const port = await freePort();
  const config = join(dir, 'config.yml');
  const http = { ...(base?.['http'] as object | undefined), addr: `127.0.0.1:${port}` };
  writeFileSync(
    config,
    stringifyYaml({
      version: 0.1,
      ...base,
      log: { level: 'error' },
      storage: { filesystem: { rootdirectory: storage } },
      http,
    }),
  );
  const child: ChildProcess = spawn('/usr/bin/docker-registry', ['serve', config], { stdio: 'ignore' });
  const host = `127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const res = await fetch(`http://${host}/v2/`);
      if (res.status === 200) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      removeDir(dir);
      throw new Error(`docker-registry did not answer on ${host}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    host,
    storage,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGKILL');
        await exited;
      }
      removeDir(dir);
    },
  };
}
