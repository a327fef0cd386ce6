// The bench runs against the current build: a section that no longer matches an API it drives (a
// renamed export, a changed registry) must fail here, in the suite, not months later in a make bench
// whose RESULTS.md nobody reads to the end. Not a timed test: `--smoke` runs each section once with
// tiny counts and asserts only that it ran; `make bench` exits non-zero when a section fails.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const RUNNER = join(ROOT, 'bench/run.mjs');

function runBench(script: string, args: string[], timeoutMs: number): Promise<{ code: number; out: string }> {
  const child = spawn(process.execPath, ['--expose-gc', script, ...args], {
    cwd: ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (out += t));
  return new Promise((done) => child.once('close', (code) => done({ code: code ?? -1, out })));
}

describe('bench sections run against the current build', () => {
  it('every section runs to its report in a smoke run (tiny counts, nothing written)', async () => {
    const before = readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8');
    const { code, out } = await runBench(RUNNER, ['--smoke'], 170_000);
    const failed = out.split('\n').filter((l) => l.startsWith('Section failed') || l.startsWith('bench:'));
    expect(failed, out.slice(-4000)).toEqual([]);
    expect(code, out.slice(-4000)).toBe(0);
    expect(out).toContain('(smoke run: RESULTS.md not rewritten)');
    expect(readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8')).toBe(before);
  }, 180_000);
});

describe('a failing section fails make bench', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-runner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'sections'));
  copyFileSync(RUNNER, join(dir, 'run.mjs'));
  const section = (file: string, body: string): void => writeFileSync(join(dir, 'sections', file), body);
  section('01-fine.mjs', "export const title = 'Fine';\nexport async function run() { return 'fine row'; }\n");
  section(
    '02-drifted.mjs',
    "export const title = 'Drifted';\nexport async function run() { throw new TypeError('registry.add is not a function'); }\n",
  );
  section('03-after.mjs', "export const title = 'After';\nexport async function run() { return 'after row'; }\n");

  it('exits 1 after writing RESULTS.md with every section, the failure in it, and names the failed one', async () => {
    const { code, out } = await runBench(join(dir, 'run.mjs'), [], 30_000);
    expect(code, out).toBe(1);
    expect(out).toContain('bench: 1 section(s) failed: 02-drifted.mjs');
    expect(existsSync(join(dir, 'RESULTS.md'))).toBe(true);
    const results = readFileSync(join(dir, 'RESULTS.md'), 'utf8');
    expect(results).toContain('fine row');
    expect(results).toContain('Section failed: TypeError: registry.add is not a function');
    expect(results).toContain('after row');
  });

  it('exits 0 when every section it runs reports', async () => {
    const { code, out } = await runBench(join(dir, 'run.mjs'), ['01-fine', '03-after'], 30_000);
    expect(code, out).toBe(0);
    expect(out).toContain('(subset run: RESULTS.md not rewritten)');
  });

  it('exits 1 when no section matches the names given (a typo runs nothing)', async () => {
    const { code, out } = await runBench(join(dir, 'run.mjs'), ['no-such-section'], 30_000);
    expect(code, out).toBe(1);
    expect(out).toContain('no section matches no-such-section');
  });
});
