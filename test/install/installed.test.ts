// The installed command works like the checkout: `npm pack`, install the tarball into a temporary
// prefix, and use the `toolgate` it puts on PATH from a temporary folder outside the checkout —
// serve, call, inspect, install, new + the scaffold's own build and test — with the default
// policy set that travels inside the package.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const MANIFESTS = join(ROOT, 'manifests');
const LOCAL_URL = '{"url":"http://127.0.0.1:8080/"}';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let tmp = '';
let prefix = '';
let work = '';
let env: NodeJS.ProcessEnv = {};

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      cmd,
      args,
      { cwd: opts.cwd ?? work, env: opts.env ?? env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** The installed command, found on PATH as a user's shell would find it. */
const toolgate = (args: string[], cwd = work, timeoutMs = 60_000) => run('toolgate', args, { cwd, timeoutMs });

/** A fresh folder outside the checkout. */
function folder(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'toolgate-installed-'));
  prefix = join(tmp, 'prefix');
  work = join(tmp, 'work');
  mkdirSync(work);
  // make test built dist/ just before; --ignore-scripts skips the prepack rebuild.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp, '--loglevel=error'], { cwd: ROOT, env: process.env, timeoutMs: 240_000 });
  expect(packed.code, packed.stderr).toBe(0);
  const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (tgz === undefined) throw new Error(`npm pack wrote no tarball: ${packed.stdout}${packed.stderr}`);
  const installed = await run(
    'npm',
    ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(tmp, tgz)],
    { cwd: tmp, env: process.env, timeoutMs: 400_000 },
  );
  expect(installed.code, installed.stderr).toBe(0);
  // The user's shell: the prefix's bin first, its own store, no policy or toolgate settings.
  const { TOOLGATE_POLICIES: _p, TOOLGATE: _t, TOOLGATE_TEST_CLI: _c, ...rest } = process.env;
  env = { ...rest, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, TOOLGATE_HOME: join(tmp, 'home') };
}, 600_000);
afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

describe('the packed and installed toolgate, run from a folder outside the checkout', () => {
  it('is on PATH and answers the built-in echo smoke test', async () => {
    const which = await run('sh', ['-c', 'command -v toolgate']);
    expect(which.stdout.trim()).toBe(join(prefix, 'bin', 'toolgate'));
    const r = await toolgate(['call', 'echo', '--args', '{"text":"installed"}']);
    expect(r, r.stderr).toMatchObject({ code: 0, stdout: 'installed\n' });
  });

  it('the default policy set in force is the one inside the installed package', async () => {
    const r = await toolgate(['policy', 'show', '--json'], folder('show'));
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as { origin: string; dir: string; name: string };
    expect(shown).toMatchObject({ origin: 'builtin', name: 'default' });
    expect(shown.dir.startsWith(prefix)).toBe(true);
  });

  it('policy explain answers ask for fetch_url to 127.0.0.1:8080, and the call is denied when no one can answer', async () => {
    const cwd = folder('done-when');
    const explained = await toolgate(['policy', 'explain', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL], cwd);
    expect(explained.code, explained.stderr).toBe(1);
    expect(explained.stdout).toMatch(/outcome:\s+ask/);
    const called = await toolgate(['call', 'fetch_url', '--manifests', MANIFESTS, '--args', LOCAL_URL, '--json'], cwd);
    expect(called.code, called.stderr).toBe(1);
    const result = JSON.parse(called.stdout) as { isError: boolean; error?: { code: string } };
    expect(result).toMatchObject({ isError: true, error: { code: 'APPROVAL_DENIED' } });
  });

  it('inspect describes a manifest tool', async () => {
    const r = await toolgate(['inspect', 'grep_files', '--manifests', MANIFESTS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('grep_files');
  });

  it('serve names the installed default set and offers only the manifest tools', async () => {
    const proc = spawn('toolgate', ['serve', '--http', '127.0.0.1:0', '--manifests', MANIFESTS, '--no-watch'], {
      cwd: folder('serve'),
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((ok, fail) => {
        proc.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          const m = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
          if (m?.[1] !== undefined) ok(m[1]);
        });
        void exited.then((code) => fail(new Error(`serve exited with ${String(code)}: ${stderr}`)));
      });
      expect(stderr).toContain(`policy set "default" from the built-in default (shipped with toolgate): ${prefix}`);
      const res = await fetch(`${url}/v1/tools`);
      const names = ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('greet');
      expect(names).not.toContain('echo');
      // The /ui page travels inside the package: served by the installed command, from anywhere.
      const signInPage = await fetch(`${url}/ui`);
      expect(signInPage.status).toBe(401);
      expect(await signInPage.text()).toContain('action="/ui/login"');
      for (const asset of ['app.js', 'ui.css']) {
        const r = await fetch(`${url}/ui/static/${asset}`);
        expect(r.status, asset).toBe(200);
        expect(await r.text()).toBe(readFileSync(join(ROOT, 'ui', asset), 'utf8'));
      }
      const secret = readFileSync(join(tmp, 'home', 'approval-secret'), 'utf8').trim();
      const login = await fetch(`${url}/ui/login`, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ credential: secret }).toString(),
      });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const app = await fetch(`${url}/ui`, { headers: { cookie } });
      expect(app.status).toBe(200);
      expect(await app.text()).toContain('src="/ui/static/app.js"');
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);

  describe.each(['wat', 'as', 'c', 'rust'] as const)('new --lang %s', (lang) => {
    const tool = `inst_${lang}`;
    it('scaffolds a folder with no path of this machine that passes its own build and test.sh', async () => {
      const made = await toolgate(['new', tool, '--lang', lang]);
      expect(made.code, made.stderr).toBe(0);
      const dir = join(work, tool);
      for (const file of readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
        const text = readFileSync(join(file.parentPath, file.name), 'utf8');
        for (const path of [ROOT, prefix, work]) expect(text, file.name).not.toContain(path);
      }
      const test = await run('sh', ['./test.sh'], { cwd: dir, timeoutMs: 240_000 });
      expect(test.code, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toContain(`ok: ${tool}`);
      expect(existsSync(join(dir, 'build', `${tool}.wasm`))).toBe(true);
    }, 300_000);
  });

  it('install puts a built scaffold in the store; it is called from any folder and listed', async () => {
    const src = join(work, 'inst_wat');
    if (!existsSync(join(src, 'build', 'inst_wat.wasm'))) {
      expect((await toolgate(['new', 'inst_wat', '--lang', 'wat'])).code).toBe(0);
      expect((await run('make', ['-C', src])).code).toBe(0);
    }
    const installed = await toolgate(['install', src, '--allow-unsigned', '--yes']);
    expect(installed.code, installed.stderr).toBe(0);
    const called = await toolgate(['call', 'inst_wat', '--args', '{"name":"Ada"}'], folder('elsewhere'));
    expect(called, called.stderr).toMatchObject({ code: 0, stdout: 'Hello, Ada!\n' });
    const listed = await toolgate(['list'], folder('elsewhere'));
    expect(listed.stdout).toContain('inst_wat@0.1.0');
  }, 120_000);
});
