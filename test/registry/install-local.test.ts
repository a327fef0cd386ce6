// Installing from a folder or a .tgz: signatures and trust, consent, the ceiling, the lockfile's
// downgrade rule, capability growth on upgrade, verify, list and uninstall.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { listCommand } from '../../host/src/cli/commands/registry-list.js';
import { packCommand } from '../../host/src/cli/commands/registry-pack.js';
import { trustAddCommand, trustListCommand, trustRemoveCommand } from '../../host/src/cli/commands/registry-trust.js';
import { uninstallCommand } from '../../host/src/cli/commands/registry-uninstall.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import { loadManifestDirs } from '../../host/src/manifest/index.js';
import {
  digestOf,
  installedManifestDir,
  installedManifestDirs,
  packageFromDir,
  packageFromTgz,
  packageToTgz,
  readLock,
  readTar,
  storeLayout,
  writeTar,
} from '../../host/src/registry/index.js';
import { buildWat, makeIO, removeDir, run, tempDir, writeToolDir } from './helpers.js';

let work: string;
let wasm1: string;
let wasm2: string;
let home: string;
let cwd: string;
let key: string;
let otherKey: string;

beforeAll(async () => {
  work = tempDir('local');
  wasm1 = buildWat('registry_echo', work);
  wasm2 = buildWat('registry_echo_v2', work);
  key = join(work, 'acme.key');
  otherKey = join(work, 'other.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
  expect((await run(keygenCommand, ['--out', otherKey], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));

beforeEach(() => {
  cwd = tempDir('case');
  home = join(cwd, 'home');
});
afterEach(() => removeDir(cwd));

const opts = (): { home: string; cwd: string } => ({ home, cwd });

async function trustAcme(): Promise<void> {
  expect((await run(trustAddCommand, ['acme', `${key}.pub`], opts())).code).toBe(0);
}

async function signedTgz(
  version: string,
  extra: Partial<Parameters<typeof writeToolDir>[1]> = {},
  signWith = key,
): Promise<string> {
  const dir = writeToolDir(join(cwd, `src-${version}-${Math.random().toString(16).slice(2)}`), {
    version,
    wasm: version.startsWith('1') ? wasm1 : wasm2,
    ...extra,
  });
  const out = join(cwd, `pkg-${version}-${Math.random().toString(16).slice(2)}.tgz`);
  const packed = await run(packCommand, [dir, '--out', out, '--key', signWith], opts());
  expect(packed.code, packed.err).toBe(0);
  return out;
}

describe('keys and trust', () => {
  it('keygen writes a 0600 private key and prints its ed25519 key id', async () => {
    const res = await run(keygenCommand, ['--out', join(cwd, 'k.key')], opts());
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/^ed25519:[0-9a-f]{16}\n$/);
    expect(statSync(join(cwd, 'k.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(cwd, 'k.key.pub'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    const again = await run(keygenCommand, ['--out', join(cwd, 'k.key')], opts());
    expect(again.code).toBe(2);
    expect(again.err).toContain('already exists');
  });

  it('trust add / list / remove manage the publisher keys by name', async () => {
    await trustAcme();
    const listed = await run(trustListCommand, [], opts());
    expect(listed.out).toMatch(/^acme ed25519:[0-9a-f]{16}\n$/);
    expect((await run(trustRemoveCommand, ['acme'], opts())).code).toBe(0);
    expect((await run(trustListCommand, [], opts())).out).toBe('');
    expect((await run(trustRemoveCommand, ['acme'], opts())).code).toBe(1);
    const bad = await run(trustAddCommand, ['x', join(cwd, 'missing.pub')], opts());
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('BAD_KEY');
  });
});

describe('packages', () => {
  it('pack is deterministic: the same folder and key pack to the same bytes', async () => {
    const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm: wasm1 });
    await run(packCommand, [dir, '--out', join(cwd, 'a.tgz'), '--key', key], opts());
    await run(packCommand, [dir, '--out', join(cwd, 'b.tgz'), '--key', key], opts());
    expect(readFileSync(join(cwd, 'a.tgz')).equals(readFileSync(join(cwd, 'b.tgz')))).toBe(true);
    const pkg = packageFromTgz(readFileSync(join(cwd, 'a.tgz')), 'a.tgz');
    expect(Object.keys(pkg.digests).sort()).toEqual(['README.md', 'manifest.yaml', 'module.wasm']);
    expect(pkg.digests['module.wasm']).toBe(digestOf(readFileSync(wasm1)));
    expect(pkg.manifest.module.path).toBe('module.wasm');
  });

  it('the tar writer and reader round-trip with sorted entries and fixed mtimes', () => {
    const tar = writeTar([
      { name: 'b.txt', data: Buffer.from('bee') },
      { name: 'a.txt', data: Buffer.alloc(1000, 7) },
    ]);
    const entries = readTar(tar, 't', { maxEntries: 4, maxTotalBytes: 10_000 });
    expect(entries.map((e) => e.name)).toEqual(['a.txt', 'b.txt']);
    expect(Buffer.from(entries[0]?.data ?? []).equals(Buffer.alloc(1000, 7))).toBe(true);
    expect(tar.subarray(136, 147).toString()).toBe('00000000000');
    expect(() => readTar(tar, 't', { maxEntries: 1, maxTotalBytes: 10_000 })).toThrow(/more than 1 entries/);
    const corrupt = Buffer.from(tar);
    corrupt[10] = 0x41;
    expect(() => readTar(corrupt, 't', { maxEntries: 4, maxTotalBytes: 10_000 })).toThrow(/checksum/);
  });
});

describe('install from a .tgz or a folder', () => {
  it('a signed package from a trusted publisher installs, pinned in the lockfile, with module.sha256 set', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0');
    const res = await run(installCommand, [tgz, '--yes'], opts());
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0 signed by acme\n');
    expect(res.err).toContain('has no network access');
    const lock = await readLock(storeLayout(home).lock);
    const entry = lock.tools['registry_echo'];
    expect(entry?.version).toBe('1.0.0');
    expect(entry?.source).toBe(tgz);
    expect(entry?.signer?.name).toBe('acme');
    expect(entry?.digests['module.wasm']).toBe(digestOf(readFileSync(wasm1)));
    const manifest = readFileSync(join(installedManifestDir(home), 'registry_echo', 'manifest.yaml'), 'utf8');
    const hex = digestOf(readFileSync(wasm1)).slice(7);
    expect(parseYaml(manifest)).toMatchObject({ module: { path: `../../blobs/sha256/${hex}`, sha256: hex } });
    expect(readFileSync(join(home, 'blobs', 'sha256', hex)).equals(readFileSync(wasm1))).toBe(true);
    const again = await run(installCommand, [tgz, '--yes'], opts());
    expect(again.out).toBe('unchanged registry_echo@1.0.0 signed by acme\n');
  });

  it('an unpacked package folder installs with the signature it carries', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0');
    const unpacked = join(cwd, 'unpacked');
    mkdirSync(unpacked);
    for (const e of readTar(gunzipSync(readFileSync(tgz)), 't', { maxEntries: 8, maxTotalBytes: 1 << 20 }))
      writeFileSync(join(unpacked, e.name), e.data);
    const res = await run(installCommand, [unpacked, '--yes'], opts());
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0 signed by acme\n');
  });

  it('an unsigned folder is refused, and installed with --allow-unsigned after a loud warning', async () => {
    const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm: wasm1 });
    const refused = await run(installCommand, [dir, '--yes'], opts());
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('error UNSIGNED');
    expect(existsSync(storeLayout(home).lock)).toBe(false);
    const accepted = await run(installCommand, [dir, '--yes', '--allow-unsigned'], opts());
    expect(accepted.code, accepted.err).toBe(0);
    expect(accepted.err).toContain('WARNING: registry_echo@1.0.0 is not signed');
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.signer).toBeNull();
  });

  it('a package signed by a key nobody trusts is refused as UNKNOWN_SIGNER', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0', {}, otherKey);
    const res = await run(installCommand, [tgz, '--yes'], opts());
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /error UNKNOWN_SIGNER: registry_echo@1.0.0 is signed by ed25519:[0-9a-f]{16}, which is not a trusted/,
    );
  });

  it('a manifest changed after signing fails the signature, even with --allow-unsigned', async () => {
    await trustAcme();
    const original = packageFromTgz(readFileSync(await signedTgz('1.0.0')), 'orig');
    const evilDir = writeToolDir(join(cwd, 'evil'), { version: '1.0.0', wasm: wasm1, hosts: ['attacker.example.net'] });
    const tampered = { ...(await packageFromDir(evilDir)), signature: original.signature! };
    const tgz = join(cwd, 'tampered.tgz');
    writeFileSync(tgz, packageToTgz(tampered));
    for (const flags of [['--yes'], ['--yes', '--allow-unsigned']]) {
      const res = await run(installCommand, [tgz, ...flags], opts());
      expect(res.code).toBe(1);
      expect(res.err).toContain('error BAD_SIGNATURE: registry_echo@1.0.0: signature by acme');
    }
  });

  it('a .tgz whose module does not match its listed digest is refused as DIGEST_MISMATCH', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0');
    const entries = readTar(gunzipSync(readFileSync(tgz)), 't', { maxEntries: 8, maxTotalBytes: 1 << 20 });
    const swapped = entries.map((e) => (e.name === 'module.wasm' ? { name: e.name, data: readFileSync(wasm2) } : e));
    writeFileSync(tgz, gzipSync(writeTar(swapped)));
    const res = await run(installCommand, [tgz, '--yes'], opts());
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DIGEST_MISMATCH');
    expect(res.err).toContain('module.wasm');
  });
});

describe('consent', () => {
  it('without a terminal and without --yes, install refuses with exit 2 and says to pass --yes', async () => {
    await trustAcme();
    const res = await run(installCommand, [await signedTgz('1.0.0', { hosts: ['api.example.com'] })], opts());
    expect(res.code).toBe(2);
    expect(res.err).toContain('may connect to api.example.com (https, port 443; http, port 80)');
    expect(res.err).toContain('error CONSENT_REQUIRED');
    expect(res.err).toContain('pass --yes');
    expect(existsSync(storeLayout(home).lock)).toBe(false);
  });

  it('on a terminal, the person answering decides', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0', {
      paths: { '/data': { host: '/srv/data', mode: 'rw' } },
      secrets: ['API_TOKEN'],
    });
    const no = await run(installCommand, [tgz], { ...opts(), isTTY: true, stdin: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.err).toContain('may read and write /data (host /srv/data)');
    expect(no.err).toContain('receives secret API_TOKEN');
    expect(no.err).toContain('Install registry_echo@1.0.0 with these capabilities? [y/N]');
    expect(no.err).toContain('CONSENT_DECLINED');
    const yes = await run(installCommand, [tgz], { ...opts(), isTTY: true, stdin: 'y\n' });
    expect(yes.code, yes.err).toBe(0);
  });

  it('a waiting prompt holds no lock, and a store changed meanwhile is not overwritten', async () => {
    await trustAcme();
    const first = await signedTgz('1.0.0');
    const t = makeIO({ ...opts(), isTTY: true });
    const pending = installCommand.run([first], t.io);
    for (let i = 0; i < 200 && !t.err().includes('[y/N]'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.err()).toContain('[y/N]');
    const verified = await run(verifyCommand, [], opts());
    expect(verified.out).toBe('ok: 0 installed tool(s) verified\n');
    expect((await run(installCommand, [await signedTgz('1.1.0'), '--yes'], opts())).code).toBe(0);
    t.stdin.write('y\n');
    expect(await pending).toBe(1);
    expect(t.err()).toContain('error STORE_CHANGED');
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.version).toBe('1.1.0');
  });

  it('an upgrade that grows capabilities asks again; one that does not, does not', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const same = await run(installCommand, [await signedTgz('1.1.0', { timeoutMs: 1000 })], opts());
    expect(same.code, same.err).toBe(0);
    expect(same.err).toContain('- time: 2000 ms -> 1000 ms');
    expect(same.out).toBe('upgraded registry_echo@1.1.0 (was 1.0.0) signed by acme\n');
    const grown = await signedTgz('2.0.0', { timeoutMs: 1000, hosts: ['api.example.com'], maxPages: 64 });
    const refused = await run(installCommand, [grown], opts());
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('+ network: may connect to api.example.com');
    expect(refused.err).toContain('+ memory: 16 pages -> 64 pages');
    expect(refused.err).toContain('CONSENT_REQUIRED');
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.version).toBe('1.1.0');
    expect((await run(installCommand, [grown, '--yes'], opts())).code).toBe(0);
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.version).toBe('2.0.0');
  });
});

describe('the ceiling and the lockfile', () => {
  it('the ceiling refuses a package that asks for more, whatever the answer', async () => {
    await trustAcme();
    const ceiling = join(cwd, 'ceiling.yaml');
    writeFileSync(
      ceiling,
      'allowed_hosts: ["*.example.com"]\nallow_rw_paths: false\nmax_pages: 32\nmax_timeout_ms: 5000\n',
    );
    const greedy = await signedTgz('1.0.0', {
      hosts: ['api.example.com', 'evil.example.net'],
      paths: { '/w': { host: '/tmp/w', mode: 'rw' } },
      maxPages: 64,
    });
    const res = await run(installCommand, [greedy, '--yes', '--ceiling', ceiling], {
      ...opts(),
      isTTY: true,
      stdin: 'y\n',
    });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error CEILING_EXCEEDED');
    expect(res.err).toContain('network host evil.example.net is outside the allowed hosts [*.example.com]');
    expect(res.err).toContain('read-write mount /w -> /tmp/w is not allowed');
    expect(res.err).toContain('memory.max_pages 64 is above the ceiling of 32');
    expect(res.err).not.toContain('api.example.com is outside');
    // The store's own ceiling.yaml applies without --ceiling.
    const modest = await signedTgz('1.0.0', { hosts: ['api.example.com'] });
    writeFileSync(join(cwd, 'home-ceiling.yaml'), 'allowed_hosts: []\n');
    mkdirSync(home, { recursive: true });
    copyFileSync(join(cwd, 'home-ceiling.yaml'), storeLayout(home).ceiling);
    const viaHome = await run(installCommand, [modest, '--yes'], opts());
    expect(viaHome.code).toBe(1);
    expect(viaHome.err).toContain('network host api.example.com is outside the allowed hosts []');
    const badCeiling = join(cwd, 'bad.yaml');
    writeFileSync(badCeiling, 'max_pagez: 3\n');
    const bad = await run(installCommand, [modest, '--yes', '--ceiling', badCeiling], opts());
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${badCeiling}: (top level): Unrecognized key: "max_pagez"`);
  });

  it('a lower version than the lockfile pins is refused unless --allow-downgrade', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('2.0.0'), '--yes'], opts())).code).toBe(0);
    const older = await signedTgz('1.5.0');
    const res = await run(installCommand, [older, '--yes'], opts());
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DOWNGRADE: registry_echo@1.5.0 is lower than the installed 2.0.0');
    const forced = await run(installCommand, [older, '--yes', '--allow-downgrade'], opts());
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toContain('downgraded registry_echo@1.5.0 (was 2.0.0)');
  });
});

describe('the installed store', () => {
  it('verify passes on a clean store and names the tool and file of a tampered blob', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const ok = await run(verifyCommand, [], opts());
    expect(ok.code).toBe(0);
    expect(ok.out).toBe('ok: 1 installed tool(s) verified\n');
    const blob = join(home, 'blobs', 'sha256', digestOf(readFileSync(wasm1)).slice(7));
    chmodSync(blob, 0o644);
    const bytes = readFileSync(blob);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    writeFileSync(blob, bytes);
    const bad = await run(verifyCommand, [], opts());
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`registry_echo: ${blob}: module.wasm: blob has digest`);
    const listed = await run(listCommand, [], opts());
    expect(listed.code).toBe(1);
    expect(listed.out).toContain('PROBLEM');
  });

  it('installed tools load through the manifest loader, which re-checks the module digest on every load', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const { dirs, problems } = await installedManifestDirs(home);
    expect(problems).toEqual([]);
    expect(dirs).toEqual([join(installedManifestDir(home), 'registry_echo')]);
    const loaded = await loadManifestDirs(dirs);
    expect(loaded.errors).toEqual([]);
    expect(loaded.manifests[0]?.manifest.name).toBe('registry_echo');
    expect(Buffer.from(loaded.manifests[0]?.wasm ?? []).equals(readFileSync(wasm1))).toBe(true);
    const blob = join(home, 'blobs', 'sha256', digestOf(readFileSync(wasm1)).slice(7));
    chmodSync(blob, 0o644);
    writeFileSync(blob, readFileSync(wasm2));
    const tampered = await loadManifestDirs(dirs);
    expect(tampered.manifests).toEqual([]);
    expect(tampered.errors[0]?.code).toBe('SHA256_MISMATCH');
    const after = await installedManifestDirs(home);
    expect(after.dirs).toEqual([]);
    expect(after.problems[0]?.tool).toBe('registry_echo');
  });

  it('an installed manifest edited in place is left out of the installed dirs (the loader alone cannot tell)', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const manifest = join(installedManifestDir(home), 'registry_echo', 'manifest.yaml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('allowed_hosts: []', 'allowed_hosts: ["evil.example.net"]'),
    );
    const direct = await loadManifestDirs([join(installedManifestDir(home), 'registry_echo')]);
    expect(direct.manifests[0]?.manifest.capabilities.allowed_hosts).toEqual(['evil.example.net']);
    const { dirs, problems } = await installedManifestDirs(home);
    expect(dirs).toEqual([]);
    expect(problems[0]?.message).toContain('installed manifest has digest');
  });

  it('verify reports an edited installed manifest and a signer no longer trusted', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const manifest = join(installedManifestDir(home), 'registry_echo', 'manifest.yaml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('allowed_hosts: []', 'allowed_hosts: ["evil.example.net"]'),
    );
    const res = await run(verifyCommand, [], opts());
    expect(res.code).toBe(1);
    expect(res.err).toContain(`registry_echo: ${manifest}: installed manifest has digest`);
    await run(trustRemoveCommand, ['acme'], opts());
    expect((await run(verifyCommand, [], opts())).err).toContain('signer acme');
  });

  it('list shows name, version, source, signer and capabilities, plus --manifests dirs', async () => {
    await trustAcme();
    const tgz = await signedTgz('1.0.0', { hosts: ['api.example.com'] });
    expect((await run(installCommand, [tgz, '--yes'], opts())).code).toBe(0);
    const manifests = writeToolDir(join(cwd, 'manifests'), { name: 'local_tool', version: '0.3.0', wasm: wasm1 });
    const res = await run(listCommand, ['--manifests', manifests], opts());
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('registry_echo@1.0.0\n');
    expect(res.out).toContain(`  source: ${tgz}\n`);
    expect(res.out).toMatch(/ {2}signer: acme \(ed25519:[0-9a-f]{16}\)\n/);
    expect(res.out).toContain('  may connect to api.example.com (https, port 443; http, port 80)\n');
    expect(res.out).toContain('local_tool@0.3.0\n');
  });

  it('list and verify on a machine with no store say so without creating one', async () => {
    expect((await run(listCommand, [], opts())).out).toBe('no tools installed\n');
    expect((await run(verifyCommand, [], opts())).out).toBe('ok: 0 installed tool(s) verified\n');
    expect(existsSync(home)).toBe(false);
  });

  it('uninstall removes the folder, the lock entry and blobs nothing uses', async () => {
    await trustAcme();
    expect((await run(installCommand, [await signedTgz('1.0.0'), '--yes'], opts())).code).toBe(0);
    const res = await run(uninstallCommand, ['registry_echo'], opts());
    expect(res.code).toBe(0);
    expect(existsSync(join(installedManifestDir(home), 'registry_echo'))).toBe(false);
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
    expect(existsSync(join(home, 'blobs', 'sha256', digestOf(readFileSync(wasm1)).slice(7)))).toBe(false);
    const again = await run(uninstallCommand, ['registry_echo'], opts());
    expect(again.code).toBe(1);
    expect(again.err).toContain('NOT_INSTALLED');
  });
});
