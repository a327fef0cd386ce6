// Two commands on a fresh machine: `make run` and `make test` install the toolchains they need
// (scripts/toolchains.sh). Installing is not something a test may do, so these prove what the
// script finds missing and what it tells a user who cannot install, and that make calls it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/toolchains.sh');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

let bare = '';
beforeAll(async () => {
  // A PATH with only what a shell script needs to run: no make, clang, wasm-ld, wat2wasm.
  bare = mkdtempSync(join(tmpdir(), 'toolgate-bare-path-'));
  for (const tool of ['bash', 'id']) {
    const found = await run('bash', ['-c', `command -v ${tool}`], process.env);
    symlinkSync(found.stdout.trim(), join(bare, tool));
  }
});
afterAll(() => rmSync(bare, { recursive: true, force: true }));

describe('scripts/toolchains.sh', () => {
  it('names every missing toolchain and the exact command to install them when it cannot install (exit 2)', async () => {
    const r = await run(join(bare, 'bash'), [SCRIPT, 'test'], { PATH: bare, TOOLGATE_NO_INSTALL: '1' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^toolgate: missing toolchains \(.*\); install them with: sudo apt-get update && sudo apt-get install -y -qq --no-install-recommends /,
    );
    for (const pkg of ['make', 'clang', 'lld', 'wabt', 'docker-registry', 'chromium'])
      expect(lines[0]).toContain(` ${pkg}`);
  });

  it('for make run (build) it does not ask for docker-registry', async () => {
    const r = await run(join(bare, 'bash'), [SCRIPT, 'build'], { PATH: bare, TOOLGATE_NO_INSTALL: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('clang');
    expect(r.stderr).not.toContain('docker-registry');
    expect(r.stderr).not.toContain('chromium');
  });

  it('for make screenshots (browser) it asks only for chromium and a font', async () => {
    const r = await run(join(bare, 'bash'), [SCRIPT, 'browser'], { PATH: bare, TOOLGATE_NO_INSTALL: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing toolchains \(chromium( fonts-dejavu-core)?\)/);
  });

  it('is silent and succeeds when everything is present (this machine ran make test)', async () => {
    const r = await run('bash', [SCRIPT, 'test'], { ...process.env, TOOLGATE_NO_INSTALL: '1' });
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses an unknown mode (exit 2)', async () => {
    const r = await run('bash', [SCRIPT, 'everything'], process.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage:');
  });
});

describe('the Makefile installs what it needs before it builds', () => {
  it('make test checks the test toolchains first; make run only the build ones', async () => {
    // Run as a nested make (make test -> vitest -> here), make would print "Entering directory".
    const { MAKEFLAGS: _f, MAKELEVEL: _l, MFLAGS: _m, ...env } = process.env;
    const test = await run('make', ['-n', '--no-print-directory', 'test'], env);
    expect(test.stdout.split('\n')[0]).toBe('scripts/toolchains.sh test');
    const runPlan = await run('make', ['-n', '--no-print-directory', 'build', 'examples'], env);
    expect(runPlan.stdout).toContain('scripts/toolchains.sh build');
    expect(runPlan.stdout).not.toContain('scripts/toolchains.sh test');
  });
});

describe('the README set-up commands need only Node', () => {
  it("the README's two set-up commands are npm scripts, and each goes through scripts/make.sh", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /## Set up\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = block
      .trim()
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm run demo', 'npm test']);
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.demo).toBe('bash scripts/make.sh run');
    expect(scripts.test).toBe('bash scripts/make.sh test');
  });

  it('scripts/make.sh on a machine without make installs make first (here: asks for it, exit 2, when it may not install)', async () => {
    const r = await run(join(bare, 'bash'), [join(ROOT, 'scripts/make.sh'), 'run'], {
      PATH: bare,
      TOOLGATE_NO_INSTALL: '1',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing toolchains \(make\); install them with: .*apt-get install .* make/);
  });

  it('scripts/make.sh hands over to make when make is there', async () => {
    const { MAKEFLAGS: _f, MAKELEVEL: _l, MFLAGS: _m, ...env } = process.env;
    const r = await run('bash', [join(ROOT, 'scripts/make.sh'), '-n', '--no-print-directory', 'test'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('scripts/toolchains.sh test');
  });
});
