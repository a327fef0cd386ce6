// A kill -9 in the middle of an install leaves the store consistent: before the commit point the
// previous version stays, after it the next open finishes the new one; verify passes either way.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { listCommand } from '../../host/src/cli/commands/registry-list.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import { installedManifestDir, readLock, storeLayout } from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, tempDir, writeToolDir } from './helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const entry = join(here, 'cli-entry.mjs');

let work: string;
let v1: string;
let v2: string;
let key: string;

beforeAll(async () => {
  // the child runs the compiled commands (dist/ is made fresh by test/global-setup.ts)
  expect(existsSync(join(root, 'dist/cli/commands/registry-install.js'))).toBe(true);
  work = tempDir('crash');
  const wasm1 = buildWat('registry_echo', work);
  const wasm2 = buildWat('registry_echo_v2', work);
  key = join(work, 'pub.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
  v1 = join(work, 'v1.tgz');
  v2 = join(work, 'v2.tgz');
  const d1 = writeToolDir(join(work, 'src1'), { version: '1.0.0', wasm: wasm1 });
  const d2 = writeToolDir(join(work, 'src2'), { version: '2.0.0', wasm: wasm2 });
  expect((await run(packCommand, [d1, '--out', v1, '--key', key], { home: work, cwd: work })).code).toBe(0);
  expect((await run(packCommand, [d2, '--out', v2, '--key', key], { home: work, cwd: work })).code).toBe(0);
}, 300_000);
afterAll(() => removeDir(work));

/** Spawns the CLI paused at `stage`, waits for it to get there, then SIGKILLs it. */
async function killAt(
  home: string,
  stage: string,
  args: string[] = ['install', v2, '--yes', '--quiet'],
): Promise<void> {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: work,
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_TEST_PAUSE_AT: stage },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  try {
    await new Promise<void>((resolvePaused, reject) => {
      const timer = setTimeout(() => reject(new Error(`child never paused at ${stage}; stderr: ${stderr}`)), 20_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes(`paused at ${stage}`)) {
          clearTimeout(timer);
          resolvePaused();
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`child exited before pausing at ${stage}; stderr: ${stderr}`));
      });
    });
  } finally {
    child.kill('SIGKILL');
  }
  expect(await exited).toBe('SIGKILL');
}

describe('a kill -9 mid-install', () => {
  for (const [stage, expected] of [
    ['blobs-written', '1.0.0'],
    ['staged', '1.0.0'],
    ['committed', '2.0.0'],
  ] as const) {
    it(`killed at "${stage}": the store settles on ${expected} and verify passes`, async () => {
      const home = join(work, `home-${stage}`);
      const opts = { home, cwd: work };
      expect((await run(trustAddCommand, ['pub', `${key}.pub`], opts)).code).toBe(0);
      expect((await run(installCommand, [v1, '--yes', '--quiet'], opts)).code).toBe(0);
      await killAt(home, stage);
      const layout = storeLayout(home);
      // Before anything repairs it: the lockfile on disk is whole and still the old one.
      expect((await readLock(layout.lock)).tools['registry_echo']?.version).toBe('1.0.0');
      expect(existsSync(layout.txn)).toBe(stage === 'committed');

      const verified = await run(verifyCommand, [], opts);
      expect(verified.code, verified.err).toBe(0);
      expect((await readLock(layout.lock)).tools['registry_echo']?.version).toBe(expected);
      const manifest = parseYaml(
        readFileSync(join(installedManifestDir(home), 'registry_echo', 'manifest.yaml'), 'utf8'),
      ) as { version: string };
      expect(manifest.version).toBe(expected);
      expect(existsSync(layout.txn)).toBe(false);
      expect(readdirSync(layout.tmp)).toEqual([]);
      expect(existsSync(layout.mutex)).toBe(false);
      const listed = await run(listCommand, [], opts);
      expect(listed.out).toContain(`registry_echo@${expected}\n`);
      // The store keeps working: the interrupted upgrade can simply be run again.
      const again = await run(installCommand, [v2, '--yes', '--quiet'], opts);
      expect(again.code, again.err).toBe(0);
      expect((await run(verifyCommand, [], opts)).code).toBe(0);
    });
  }

  for (const [stage, remains] of [
    ['staged', true],
    ['committed', false],
  ] as const) {
    it(`an uninstall killed at "${stage}" leaves the tool ${remains ? 'installed' : 'gone'} and verify passes`, async () => {
      const home = join(work, `home-uninstall-${stage}`);
      const opts = { home, cwd: work };
      expect((await run(trustAddCommand, ['pub', `${key}.pub`], opts)).code).toBe(0);
      expect((await run(installCommand, [v1, '--yes', '--quiet'], opts)).code).toBe(0);
      await killAt(home, stage, ['uninstall', 'registry_echo']);
      const verified = await run(verifyCommand, [], opts);
      expect(verified.code, verified.err).toBe(0);
      expect('registry_echo' in (await readLock(storeLayout(home).lock)).tools).toBe(remains);
      expect(existsSync(join(installedManifestDir(home), 'registry_echo', 'manifest.yaml'))).toBe(remains);
    });
  }

  it('the child CLI verifies a store on its own (spawned `verify`)', async () => {
    const home = join(work, 'home-spawned-verify');
    expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd: work })).code).toBe(0);
    expect((await run(installCommand, [v1, '--yes', '--quiet'], { home, cwd: work })).code).toBe(0);
    const out = execFileSync(process.execPath, [entry, 'verify'], {
      cwd: work,
      env: { ...process.env, TOOLGATE_HOME: home },
    }).toString();
    expect(out).toBe('ok: 1 installed tool(s) verified\n');
  });
});
