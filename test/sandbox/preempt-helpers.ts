// Shared by the preemption tests: the module corpus (every module we build, the shared Extism compat
// corpus), tools built from a manifest on a chosen execution path, and outcomes made comparable.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadManifestFile, toolFromManifest } from '../../host/src/manifest/index.js';
import type { SandboxExecution } from '../../host/src/sandbox/index.js';
import { ToolFailure, type ExecIdentity, type JsonObject } from '../../host/src/tool/index.js';

export const ROOT = resolve(__dirname, '../..');
/** The shared corpus (`make test` passes SHARED; a worktree may set SHARED=/work/shared). */
export const COMPAT = resolve(ROOT, process.env.SHARED ?? '../shared', 'compat');
export const hasCompat = existsSync(join(COMPAT, 'cases.json'));

/** The same module, as it always ran (worker, plain), instrumented in a worker, and on the calling thread when its tool may. */
export const VARIANTS = {
  plain: { path: 'worker', instrument: false },
  instrumented: { path: 'worker', instrument: true },
  callingThread: { path: 'auto' },
} satisfies Record<string, SandboxExecution>;

/** Every .wasm we build (fixtures, example tools) and the compat corpus. */
export function corpusModules(): string[] {
  const dirs = [
    join(ROOT, 'test/fixtures/build'),
    ...readdirSync(join(ROOT, 'pdk-examples')).map((d) => join(ROOT, 'pdk-examples', d, 'build')),
  ];
  if (hasCompat) dirs.push(join(COMPAT, 'wasm'));
  return dirs
    .filter((d) => existsSync(d))
    .flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.wasm'))
        .map((f) => join(d, f)),
    );
}

export type Outcome = { ok: unknown } | { load: string } | { error: string; message: string };

/** Loads the manifest on the given path and makes one call; whatever happens, as a comparable value. */
export async function outcome(manifest: string, args: JsonObject, execution: SandboxExecution): Promise<Outcome> {
  let tool;
  try {
    tool = await toolFromManifest(await loadManifestFile(manifest), { env: {}, execution });
  } catch (err) {
    return { load: err instanceof Error ? err.message : String(err) };
  }
  try {
    const exec: ExecIdentity = { callId: 'eq', name: tool.name, arguments: args, signal: AbortSignal.timeout(20_000) };
    return { ok: await tool.execute(args, exec) };
  } catch (err) {
    if (err instanceof ToolFailure) return { error: err.code, message: err.message };
    return { error: 'THROWN', message: err instanceof Error ? err.message : String(err) };
  } finally {
    await tool.dispose?.();
  }
}

/** The compat corpus's stand-in for jsonplaceholder, in its own process (a tool may not reach ours). */
export async function compatServer(): Promise<{ base: string; stop(): void }> {
  const code = `
    const http = require('node:http');
    const s = http.createServer((req, res) => {
      if (req.url === '/todos/1') { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ userId: 1, id: 1, title: 'delectus aut autem', completed: false })); }
      else { res.statusCode = 404; res.end('not found'); }
    });
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child: ChildProcess = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((ok, fail) => {
    child.stdout?.once('data', (d: Buffer) => ok(d.toString().trim()));
    child.once('exit', () => fail(new Error('the compat server exited')));
  });
  return { base: `http://127.0.0.1:${port}`, stop: () => void child.kill() };
}

export interface CompatCase {
  name: string;
  manifest: string;
  args: JsonObject;
  raw_input?: string;
}

export function compatCases(base: string): CompatCase[] {
  const doc = JSON.parse(readFileSync(join(COMPAT, 'cases.json'), 'utf8')) as { cases: CompatCase[] };
  return doc.cases.map((c) => ({
    ...c,
    manifest: join(COMPAT, c.manifest),
    args: JSON.parse(JSON.stringify(c.args ?? {}).replaceAll('{{BASE}}', base)) as JsonObject,
  }));
}
