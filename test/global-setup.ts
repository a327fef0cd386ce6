// Runs once before the whole suite (vitest globalSetup): tests spawn dist/cli/main.js and the sandbox
// runs its worker from dist/, so dist/ must match host/src before any test starts. A stale dist/ is
// built here, once; no test file runs tsc or make itself (that raced other test processes that were
// spawning the same files). The example and fixture modules are brought up to date the same way.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'host/src');
const DIST = join(ROOT, 'dist');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The first source whose compiled file is missing or older than it, if any. */
export function staleSource(): string | undefined {
  for (const src of sources(SRC)) {
    const out = join(DIST, relative(SRC, src)).replace(/\.ts$/, '.js');
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs) return relative(ROOT, src);
    // the package's entries ship their declarations (package.json "exports" types)
    if (out.startsWith(join(DIST, 'public')) && !existsSync(out.replace(/\.js$/, '.d.ts'))) return relative(ROOT, src);
  }
  return undefined;
}

function make(dir: string): void {
  try {
    execFileSync('make', ['-s', '--no-print-directory', '-C', join(ROOT, dir)], {
      cwd: ROOT,
      stdio: 'pipe',
      timeout: 600_000,
    });
  } catch (err) {
    const out = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `make -C ${dir} failed (run \`make examples fixtures\` to see why):\n${out.stdout ?? ''}${out.stderr ?? ''}`,
    );
  }
}

/** The instruction walker (host/walker, AssemblyScript) is built into dist by scripts/build-walker.mjs. */
function buildWalkerIfStale(): void {
  const src = join(ROOT, 'host/walker/walker.ts');
  const out = join(DIST, 'sandbox/module/walker.wasm');
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(src).mtimeMs) return;
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-walker.mjs')], {
    cwd: ROOT,
    stdio: 'pipe',
    timeout: 600_000,
  });
}

export default function setup(): void {
  buildWalkerIfStale();
  const stale = staleSource();
  if (stale !== undefined) {
    console.log(`dist/ is older than ${stale}: building it once (tsc, then scripts/bundle.mjs)`);
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
        cwd: ROOT,
        stdio: 'pipe',
        timeout: 600_000,
      });
    } catch (err) {
      // tsc emits despite type errors; the freshness check below is what decides
      const out = err as { stdout?: Buffer };
      console.log(`tsc reported errors (dist/ was still written):\n${String(out.stdout ?? '').slice(0, 4000)}`);
    }
    const still = staleSource();
    if (still !== undefined)
      throw new Error(`dist/ is still older than ${still} after building: run \`make build\` and read its errors`);
    // tsc rewrote dist/cli/main.js and the worker unbundled: bundle them again, as `make build` does
    execFileSync(process.execPath, [join(ROOT, 'scripts/bundle.mjs')], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
  }
  make('pdk-examples');
  make('test/fixtures');
}
