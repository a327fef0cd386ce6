// The shipped command instruments with the WebAssembly walker (dist/sandbox/module/walker.wasm)
// and falls back to the JavaScript walker when that file is missing (an install that lost it, a
// build without it). Either way a module must come out as the same bytes: the prepared-module
// cache entries of two homes that share a cache key are compared byte for byte
// (docs/decisions.md, "The instruction walker as WebAssembly").
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MANIFESTS, removeDir, requireBuilt, ROOT, tempDir } from './helpers.js';

/** Pure example tools of three toolchains (Rust, C, AssemblyScript): each runs on the calling thread, instrumented. */
const CALLS: [string, Record<string, unknown>][] = [
  ['convert_units', { value: 1, from: 'km', to: 'mi' }],
  ['csv_to_json', { csv: 'a,b\n1,2\n' }],
  ['text_stats', { text: 'one two two three three three' }],
];

function call(main: string, home: string, tool: string, args: Record<string, unknown>): Promise<string> {
  return new Promise((done, fail) => {
    const argv = [main, 'call', tool, '--args', JSON.stringify(args), '--manifests', MANIFESTS, '--policies', 'none'];
    execFile(
      process.execPath,
      argv,
      { env: { ...process.env, TOOLGATE_HOME: home }, timeout: 30_000 },
      (err, out, errText) => (err === null ? done(out) : fail(new Error(`${tool}: ${err.message}\n${errText}`))),
    );
  });
}

/** The prepared-module cache entries of a home, by file name. */
function prepared(home: string): Map<string, Buffer> {
  const dir = join(home, 'cache/prepared');
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

let work: string;
let copy: string;

beforeAll(() => {
  requireBuilt();
  work = tempDir('walker-fallback');
  // the command as built, less its walker: the bundle finds the instance worker and the walker
  // under dist/ beside it, and the worker's imports in node_modules
  copy = join(work, 'install');
  mkdirSync(copy);
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  rmSync(join(copy, 'dist/sandbox/module/walker.wasm'));
});

afterAll(() => removeDir(work));

describe('the instruction walker in the shipped command', () => {
  test('a command without walker.wasm answers as the built one and prepares every module to the same bytes', async () => {
    expect(existsSync(join(ROOT, 'dist/sandbox/module/walker.wasm'))).toBe(true);
    expect(existsSync(join(copy, 'dist/sandbox/module/walker.wasm'))).toBe(false);
    const withWalker = join(work, 'home-wasm');
    const withoutWalker = join(work, 'home-js');
    const built = join(ROOT, 'dist/cli/main.js');
    const answers: string[] = [];
    for (const [tool, args] of CALLS) answers.push(await call(built, withWalker, tool, args));
    // the same sealing key, so that equal modules give equal entries
    mkdirSync(join(withoutWalker, 'cache'), { recursive: true });
    cpSync(join(withWalker, 'cache/key'), join(withoutWalker, 'cache/key'));
    for (const [i, [tool, args]] of CALLS.entries())
      expect(await call(join(copy, 'dist/cli/main.js'), withoutWalker, tool, args)).toBe(answers[i]);
    const a = prepared(withWalker);
    const b = prepared(withoutWalker);
    // the called modules at least (`call` may prepare the folder's other modules too, as time allows)
    const both = [...a.keys()].filter((name) => b.has(name));
    expect(both.length).toBeGreaterThanOrEqual(CALLS.length);
    for (const name of both) expect(Buffer.compare(a.get(name) as Buffer, b.get(name) as Buffer), name).toBe(0);
  }, 90_000);
});
