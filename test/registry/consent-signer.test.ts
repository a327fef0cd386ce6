// The consent review names who vouches for the package (issue 23 item 6): the signer's trust name
// and key id and whether this store trusts it, on the terminal prompt of a first install and in the
// review printed without one, through the real `toolgate install` process.
import { execFile, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { readLock, storeLayout } from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from './helpers.js';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

let work: string;
let wasm: string;
let key: string;
let keyId: string;
let cwd: string;
let home: string;

beforeAll(async () => {
  work = tempDir('consent');
  wasm = buildWat('registry_echo', work);
  key = join(work, 'acme.key');
  const made = await run(keygenCommand, ['--out', key], { home: work, cwd: work });
  expect(made.code).toBe(0);
  keyId = made.out.trim();
});
afterAll(() => removeDir(work));
beforeEach(() => {
  cwd = tempDir('consentcase');
  home = join(cwd, 'home');
});
afterEach(() => removeDir(cwd));

const env = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: cwd,
  TOOLGATE_HOME: home,
  TOOLGATE_LOG_LEVEL: 'silent',
});

async function tgz(signed: boolean): Promise<string> {
  const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm, hosts: ['api.example.com'] });
  const out = join(cwd, 'registry_echo-1.0.0.tgz');
  const packed = await run(packCommand, [dir, '--out', out, ...(signed ? ['--key', key] : [])], { home: work, cwd });
  expect(packed.code, packed.err).toBe(0);
  return out;
}

/** `toolgate install ARGS` as its own process, without a terminal. */
function install(args: string[]): Promise<{ code: number; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [MAIN, 'install', ...args], { cwd, env: env() }, (err, _out, errText) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, err: errText });
    });
  });
}

describe('the consent review names the signer and whether it is trusted', () => {
  it('on a terminal, the first-install prompt names the trusted signer by name and key id, just before the question', async () => {
    expect((await run(trustAddCommand, ['acme', `${key}.pub`], { home, cwd })).code).toBe(0);
    const pkg = await tgz(true);
    // script(1) gives the command a terminal, as a person's shell would.
    const proc = spawn('script', ['-qec', `${process.execPath} ${MAIN} install ${pkg}`, '/dev/null'], {
      cwd,
      env: env(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.stdout.on('data', (d: Buffer) => {
      const before = out;
      out += d.toString();
      if (!before.includes('[y/N]') && out.includes('[y/N]')) proc.stdin.write('n\n');
    });
    const code = await exited;
    clearTimeout(timer);
    const review = out.slice(0, out.indexOf('[y/N]')).replace(/\r/g, '');
    expect(review).toContain('may connect to api.example.com');
    expect(review).toMatch(
      new RegExp(
        `registry_echo@1\\.0\\.0: signed by acme \\(${keyId}\\), a trusted publisher key\\n(.*\\n)?Install registry_echo@1\\.0\\.0 with these capabilities\\? $`,
      ),
    );
    expect(out).toContain('CONSENT_DECLINED');
    expect(code).toBe(1);
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
  }, 40_000);

  it('signed by a key this store does not trust (--allow-unsigned): the review says NOT trusted and names the key id', async () => {
    const res = await install([await tgz(true), '--allow-unsigned']);
    expect(res.code).toBe(2);
    expect(res.err).toContain(
      `registry_echo@1.0.0: signed by ${keyId}, NOT a trusted publisher key (installing only because of --allow-unsigned)`,
    );
    expect(res.err.indexOf('NOT a trusted publisher key (installing')).toBeLessThan(
      res.err.indexOf('error CONSENT_REQUIRED'),
    );
  });

  it('unsigned (--allow-unsigned): the review says nobody signed it', async () => {
    const res = await install([await tgz(false), '--allow-unsigned']);
    expect(res.code).toBe(2);
    expect(res.err).toContain('registry_echo@1.0.0: NOT signed: nobody vouches for it');
    expect(res.err).toContain('error CONSENT_REQUIRED');
  });
});
