// Upgrades and ceilings cover every capability-bearing key (issue 11, hole 7), through the real
// `toolgate install` process: a publisher who raises pool.max, max_input_bytes, a write quota or
// adds config in a minor release is shown the change and asked again; a ceiling can refuse each.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { readLock, storeLayout } from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, tempDir, writeToolDir, type ToolSpec } from './helpers.js';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

let work: string;
let wasm: string;
let key: string;
let cwd: string;
let home: string;

beforeAll(async () => {
  work = tempDir('upgrade');
  wasm = buildWat('registry_echo', work);
  key = join(work, 'acme.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));
beforeEach(async () => {
  cwd = tempDir('upcase');
  home = join(cwd, 'home');
  expect((await run(trustAddCommand, ['acme', `${key}.pub`], { home, cwd })).code).toBe(0);
});
afterEach(() => removeDir(cwd));

/** The local registry folder: one signed .tgz per version, as a publisher would upload it. */
async function release(spec: Omit<ToolSpec, 'wasm'>): Promise<string> {
  const dir = writeToolDir(join(cwd, `src-${spec.version}-${Math.random().toString(16).slice(2)}`), { ...spec, wasm });
  const out = join(cwd, 'registry', `registry_echo-${spec.version}-${Math.random().toString(16).slice(2)}.tgz`);
  const packed = await run(packCommand, [dir, '--out', out, '--key', key], { home, cwd });
  expect(packed.code, packed.err).toBe(0);
  return out;
}

/** `toolgate install ARGS` as its own process, without a terminal. */
function install(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [MAIN, 'install', ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, TOOLGATE_HOME: home, TOOLGATE_LOG_LEVEL: 'silent' } },
      (err, out, errText) => {
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out, err: errText });
      },
    );
  });
}

async function installedVersion(): Promise<string | undefined> {
  return (await readLock(storeLayout(home).lock)).tools['registry_echo']?.version;
}

describe('an upgrade shows every capability that grows and asks again', () => {
  it('raising pool.max, max_input_bytes or a write quota, or adding or changing config, is not "(none)": each asks again', async () => {
    const base = {
      paths: { '/out': { host: '/srv/out', mode: 'rw' as const } },
      config: { endpoint: 'https://a.example' },
    };
    expect((await install([await release({ version: '1.0.0', ...base }), '--yes'])).code).toBe(0);
    const cases: Array<[Omit<ToolSpec, 'wasm'>, string]> = [
      [{ version: '1.1.0', ...base, poolMax: 32 }, '+ instances at once (pool.max): 2 -> 32'],
      [{ version: '1.2.0', ...base, maxInputBytes: 64 * 1024 * 1024 }, '+ input: 1 MiB -> 64 MiB'],
      [
        {
          version: '1.3.0',
          ...base,
          paths: { '/out': { host: '/srv/out', mode: 'rw', max_bytes: 1024 * 1024 * 1024 } },
        },
        '+ files: writes to /out per call: 64 MiB -> 1024 MiB',
      ],
      [
        { version: '1.3.1', ...base, paths: { '/out': { host: '/srv/out', mode: 'rw', max_entries: 1_000_000 } } },
        '+ files: new files and directories in /out per call: 10000 -> 1000000',
      ],
      [
        { version: '1.4.0', ...base, config: { ...base.config, debug_upload: 'https://collector.example' } },
        '+ config: receives debug_upload = "https://collector.example"',
      ],
      [
        { version: '1.5.0', ...base, config: { endpoint: 'https://b.example' } },
        '+ config: endpoint changes from "https://a.example" to "https://b.example"',
      ],
    ];
    for (const [spec, line] of cases) {
      const res = await install([await release(spec)]);
      expect(res.err, spec.version).toContain(line);
      expect(res.err).not.toMatch(/capability changes:\n {2}\(none\)/);
      expect(res.code, res.err).toBe(2);
      expect(res.err).toContain('CONSENT_REQUIRED');
      expect(await installedVersion()).toBe('1.0.0');
    }
  });

  it('lowering the same keys is shown as "-" and installs without asking', async () => {
    const grown = {
      poolMax: 8,
      maxInputBytes: 4 * 1024 * 1024,
      paths: { '/out': { host: '/srv/out', mode: 'rw' as const, max_bytes: 8 * 1024 * 1024 } },
      config: { a: '1', b: '2' },
    };
    expect((await install([await release({ version: '1.0.0', ...grown }), '--yes'])).code).toBe(0);
    const res = await install([
      await release({
        version: '1.1.0',
        paths: { '/out': { host: '/srv/out', mode: 'rw', max_bytes: 1024 * 1024 } },
        config: { a: '1' },
      }),
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.err).toContain('- instances at once (pool.max): 8 -> 2');
    expect(res.err).toContain('- input: 4 MiB -> 1 MiB');
    expect(res.err).toContain('- files: writes to /out per call: 8 MiB -> 1 MiB');
    expect(res.err).toContain('- config: receives b');
    expect(await installedVersion()).toBe('1.1.0');
  });

  it('a first install lists the write quota and the pool size in its consent text', async () => {
    const res = await install([
      await release({
        version: '1.0.0',
        paths: { '/out': { host: '/srv/out', mode: 'rw', max_bytes: 1024 * 1024 } },
        poolMax: 4,
      }),
    ]);
    expect(res.code).toBe(2);
    expect(res.err).toContain('may write up to 1 MiB to /out in each call');
    expect(res.err).toContain('runs at most 4 instances at once');
  });
});

describe('the ceiling has a key for every capability', () => {
  it('max_input_bytes, max_pool, max_write_bytes and allowed_config refuse a package over them, whatever the answer', async () => {
    const ceiling = join(cwd, 'ceiling.yaml');
    writeFileSync(
      ceiling,
      'max_input_bytes: 1048576\nmax_pool: 4\nmax_write_bytes: 16777216\nmax_write_entries: 500\nallowed_config: [endpoint]\n',
    );
    const greedy = await release({
      version: '1.0.0',
      maxInputBytes: 8 * 1024 * 1024,
      poolMax: 16,
      paths: { '/out': { host: '/srv/out', mode: 'rw' } },
      config: { endpoint: 'x', token_sink: 'y' },
    });
    const res = await install([greedy, '--yes', '--ceiling', ceiling]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error CEILING_EXCEEDED');
    expect(res.err).toContain('max_input_bytes 8388608 is above the ceiling of 1048576');
    expect(res.err).toContain('pool.max 16 is above the ceiling of 4');
    expect(res.err).toContain(
      'allowed_paths./out.max_bytes 67108864 is above the ceiling of 16777216 (max_write_bytes)',
    );
    expect(res.err).toContain('allowed_paths./out.max_entries 10000 is above the ceiling of 500 (max_write_entries)');
    expect(res.err).toContain('config key token_sink is not in the allowed config keys');
    expect(res.err).not.toContain('config key endpoint');
    const modest = await release({
      version: '1.0.0',
      poolMax: 4,
      paths: { '/out': { host: '/srv/out', mode: 'rw', max_bytes: 1024, max_entries: 500 } },
      config: { endpoint: 'x' },
    });
    const ok = await install([modest, '--yes', '--ceiling', ceiling]);
    expect(ok.code, ok.err).toBe(0);
  });
});
