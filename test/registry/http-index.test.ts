// Installing from a static HTTP index (index.json + .tgz files) served by a real node:http server on
// 127.0.0.1: range selection, tampering, auth, transport rules and progress output.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import {
  digestOf,
  maxSatisfying,
  packageFromDir,
  packageFromTgz,
  packageToTgz,
  readLock,
  satisfies,
  storeLayout,
  type IndexFile,
} from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, serveStatic, tempDir, writeToolDir, type StaticServer } from './helpers.js';

let work: string;
let wasm: string;
let key: string;
let cwd: string;
let home: string;
let site: string;
let server: StaticServer;

beforeAll(async () => {
  work = tempDir('index');
  wasm = buildWat('registry_echo', work);
  key = join(work, 'pub.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
});
afterAll(() => removeDir(work));

beforeEach(async () => {
  cwd = tempDir('case');
  home = join(cwd, 'home');
  site = join(cwd, 'site');
  server = await serveStatic(site);
  expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd })).code).toBe(0);
});
afterEach(async () => {
  await server.close();
  removeDir(cwd);
});

async function publish(version: string, extra: { hosts?: string[]; sign?: boolean } = {}): Promise<void> {
  const dir = writeToolDir(join(cwd, `src-${version}`), { version, wasm, hosts: extra.hosts ?? [] });
  const args = [dir, '--to', site, ...(extra.sign === false ? [] : ['--key', key])];
  const res = await run(publishCommand, args, { home, cwd });
  expect(res.code, res.err).toBe(0);
}

function readIndex(): IndexFile {
  return JSON.parse(readFileSync(join(site, 'index.json'), 'utf8')) as IndexFile;
}

describe('semver ranges', () => {
  it('the range matcher knows ^, ~, exact, >= and keeps prereleases out unless named', () => {
    const versions = ['0.9.0', '1.0.0', '1.2.0', '1.2.5', '1.3.0-rc.1', '2.0.0'];
    expect(maxSatisfying(versions, '^1.0.0')).toBe('1.2.5');
    expect(maxSatisfying(versions, '~1.2.0')).toBe('1.2.5');
    expect(maxSatisfying(versions, '1.2.0')).toBe('1.2.0');
    expect(maxSatisfying(versions, '>=1.2.1')).toBe('2.0.0');
    expect(maxSatisfying(versions, '>=1.0.0 <1.2.0')).toBe('1.0.0');
    expect(maxSatisfying(versions, '*')).toBe('2.0.0');
    expect(maxSatisfying(versions, '^0.9.0')).toBe('0.9.0');
    expect(maxSatisfying(versions, '^3.0.0')).toBeUndefined();
    expect(satisfies('1.3.0-rc.1', '^1.0.0')).toBe(false);
    expect(satisfies('1.3.0-rc.1', '>=1.3.0-rc.0')).toBe(true);
    expect(satisfies('0.3.1', '^0.2.0')).toBe(false);
  });
});

describe('install from a static HTTP index', () => {
  it('installs the highest version matching the range, signed, from index.json', async () => {
    for (const v of ['1.0.0', '1.2.0', '2.0.0']) await publish(v);
    const index = readIndex();
    const entry = index.tools['registry_echo']?.versions['1.2.0'];
    expect(entry?.url).toBe('packages/registry_echo-1.2.0.tgz');
    expect(entry?.digest).toBe(digestOf(readFileSync(join(site, 'packages', 'registry_echo-1.2.0.tgz'))));
    expect(entry?.signer).toMatch(/^ed25519:/);
    const ref = `${server.url}/index.json#registry_echo@^1.0.0`;
    const res = await run(installCommand, [ref, '--yes'], { home, cwd });
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.2.0 signed by pub\n');
    expect(res.err).toContain('downloading registry_echo@1.2.0');
    expect(res.err).toMatch(/downloaded registry_echo@1.2.0: [\d.]+ (B|KiB)/);
    const lock = await readLock(storeLayout(home).lock);
    expect(lock.tools['registry_echo']?.source).toBe(ref);
    const upgrade = await run(installCommand, [`${server.url}/index.json#registry_echo`, '--yes', '--quiet'], {
      home,
      cwd,
    });
    expect(upgrade.out).toBe('upgraded registry_echo@2.0.0 (was 1.2.0) signed by pub\n');
    expect(upgrade.err).not.toContain('downloading');
  });

  it('a tampered package file on the server is refused as DIGEST_MISMATCH', async () => {
    await publish('1.0.0');
    const tgz = join(site, 'packages', 'registry_echo-1.0.0.tgz');
    const bytes = readFileSync(tgz);
    bytes[20] = (bytes[20] ?? 0) ^ 0x01;
    writeFileSync(tgz, bytes);
    const res = await run(installCommand, [`${server.url}/index.json#registry_echo@1.0.0`, '--yes'], { home, cwd });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /error DIGEST_MISMATCH: registry_echo@1.0.0: downloaded bytes have digest sha256:[0-9a-f]{64}, expected sha256:/,
    );
  });

  it('a manifest swapped on the server, index digests updated, still fails the publisher signature', async () => {
    await publish('1.0.0', { hosts: [] });
    const original = packageFromTgz(readFileSync(join(site, 'packages', 'registry_echo-1.0.0.tgz')), 'orig');
    const evil = await packageFromDir(
      writeToolDir(join(cwd, 'evil'), { version: '1.0.0', wasm, hosts: ['exfil.example.net'] }),
    );
    const tgz = packageToTgz({ ...evil, signature: original.signature! });
    writeFileSync(join(site, 'packages', 'registry_echo-1.0.0.tgz'), tgz);
    const index = readIndex();
    const entry = index.tools['registry_echo']?.versions['1.0.0'];
    if (!entry) throw new Error('no entry');
    entry.digest = digestOf(tgz);
    entry.files = { ...evil.digests } as Record<string, string>;
    writeFileSync(join(site, 'index.json'), JSON.stringify(index));
    const res = await run(installCommand, [`${server.url}/index.json#registry_echo`, '--yes', '--allow-unsigned'], {
      home,
      cwd,
    });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error BAD_SIGNATURE');
  });

  it('an index entry whose file digests disagree with the package is refused as DIGEST_MISMATCH', async () => {
    await publish('1.0.0');
    const index = readIndex();
    const entry = index.tools['registry_echo']?.versions['1.0.0'];
    if (!entry) throw new Error('no entry');
    entry.files['module.wasm'] = `sha256:${'0'.repeat(64)}`;
    writeFileSync(join(site, 'index.json'), JSON.stringify(index));
    const res = await run(installCommand, [`${server.url}/index.json#registry_echo`, '--yes'], { home, cwd });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DIGEST_MISMATCH');
    expect(res.err).toContain('file module.wasm has digest');
  });

  it('an unsigned index entry is refused, and accepted with --allow-unsigned', async () => {
    await publish('1.0.0', { sign: false });
    const ref = `${server.url}/index.json#registry_echo`;
    const refused = await run(installCommand, [ref, '--yes'], { home, cwd });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('error UNSIGNED');
    const accepted = await run(installCommand, [ref, '--yes', '--allow-unsigned'], { home, cwd });
    expect(accepted.code, accepted.err).toBe(0);
    expect(accepted.err).toContain('WARNING');
  });

  it("a tool name an object inherits (constructor, toString, __proto__) is looked up as the index's own entry only: NOT_FOUND", async () => {
    await publish('1.0.0');
    const constructor = await run(installCommand, [`${server.url}/index.json#constructor`, '--yes'], { home, cwd });
    expect(constructor.err).toContain('error NOT_FOUND: ');
    expect(constructor.err).toContain('the index has no tool named constructor');
    for (const name of ['toString', 'hasOwnProperty', '__proto__']) {
      // not tool names at all: refused as a reference, never looked up on the object
      const res = await run(installCommand, [`${server.url}/index.json#${name}`, '--yes'], { home, cwd });
      expect(res.err, name).toMatch(/error (BAD_REFERENCE|NOT_FOUND)/);
      expect(res.err, name).not.toMatch(/Cannot convert|is not a function|undefined or null/);
    }
    await expect(readLock(storeLayout(home).lock)).resolves.toMatchObject({ tools: {} });
  });

  it('not found, no matching version and auth required each have their own code', async () => {
    await publish('1.0.0');
    const noTool = await run(installCommand, [`${server.url}/index.json#nope`, '--yes'], { home, cwd });
    expect(noTool.err).toContain('error NOT_FOUND: ');
    expect(noTool.err).toContain('the index has no tool named nope');
    const noVersion = await run(installCommand, [`${server.url}/index.json#registry_echo@^2.0.0`, '--yes'], {
      home,
      cwd,
    });
    expect(noVersion.err).toContain('no version of registry_echo matches "^2.0.0" (has 1.0.0)');
    const noIndex = await run(installCommand, [`${server.url}/missing.json#registry_echo`, '--yes'], { home, cwd });
    expect(noIndex.err).toContain('error NOT_FOUND');
    const locked = await serveStatic(site, { status: 401 });
    try {
      const res = await run(installCommand, [`${locked.url}/index.json#registry_echo`, '--yes'], { home, cwd });
      expect(res.code).toBe(1);
      expect(res.err).toContain('error AUTH_REQUIRED');
      expect(res.err).toContain('HTTP 401');
    } finally {
      await locked.close();
    }
  });

  it('a redirect to plain http outside 127.0.0.0/8 is refused at that hop', async () => {
    await publish('1.0.0');
    const redirecting = await serveStatic(site, {
      redirects: { '/packages/registry_echo-1.0.0.tgz': 'http://registry.example.com/registry_echo.tgz' },
    });
    try {
      const res = await run(installCommand, [`${redirecting.url}/index.json#registry_echo`, '--yes'], { home, cwd });
      expect(res.code).toBe(1);
      expect(res.err).toContain('error INSECURE_TRANSPORT: http://registry.example.com/registry_echo.tgz');
      expect(redirecting.hits).toEqual(['/index.json', '/packages/registry_echo-1.0.0.tgz']);
    } finally {
      await redirecting.close();
    }
  });

  it('plain http to a host outside 127.0.0.0/8 is refused before connecting unless --insecure', async () => {
    const res = await run(installCommand, ['http://registry.example.com/index.json#registry_echo', '--yes'], {
      home,
      cwd,
    });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error INSECURE_TRANSPORT');
    expect(res.err).toContain('pass --insecure');
    const bad = await run(installCommand, [`${server.url}/index.json`, '--yes'], { home, cwd });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('error BAD_REFERENCE');
    expect(server.hits).toEqual([]);
  });
});
