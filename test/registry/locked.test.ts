// `install --locked`: a fresh store gets exactly the bytes another store's lockfile pins, from a real
// OCI registry (docker-registry), a static HTTP index and folders, however tags and ranges moved
// since; any byte that differs refuses the whole lockfile.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import { digestOf, readLock, storeLayout, type LockEntry } from '../../host/src/registry/index.js';
import {
  buildWat,
  removeDir,
  run,
  serveStatic,
  startRegistry,
  tempDir,
  writeToolDir,
  type OciRegistry,
  type StaticServer,
} from './helpers.js';

let work: string;
let wasm1: string;
let wasm2: string;
let key: string;
let registry: OciRegistry;
let cwd: string;
let site: string;
let server: StaticServer;
let repoCounter = 0;

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

/** The real `toolgate` command as its own process, without a terminal. */
function toolgate(home: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    const env = { PATH: process.env.PATH ?? '', HOME: cwd, TOOLGATE_HOME: home, TOOLGATE_LOG_LEVEL: 'silent' };
    execFile(process.execPath, [MAIN, ...args], { cwd, env }, (err, out, errText) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, out, err: errText });
    });
  });
}

beforeAll(async () => {
  work = tempDir('locked');
  wasm1 = buildWat('registry_echo', work);
  wasm2 = buildWat('registry_echo_v2', work);
  key = join(work, 'pub.key');
  expect((await run(keygenCommand, ['--out', key], { home: work, cwd: work })).code).toBe(0);
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.close();
  removeDir(work);
});
beforeEach(async () => {
  cwd = tempDir('case');
  site = join(cwd, 'site');
  server = await serveStatic(site);
});
afterEach(async () => {
  await server.close();
  removeDir(cwd);
});

/** A store that trusts the publisher key. */
async function store(name: string): Promise<string> {
  const home = join(cwd, name);
  expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd })).code).toBe(0);
  return home;
}

function src(version: string, name = 'registry_echo', extra: { hosts?: string[] } = {}): string {
  return writeToolDir(join(cwd, `src-${name}-${version}-${Math.random().toString(16).slice(2)}`), {
    name,
    version,
    wasm: version.startsWith('1.0') ? wasm1 : wasm2,
    hosts: extra.hosts ?? [],
  });
}

async function publish(dir: string, to: string, force = false): Promise<string> {
  const res = await run(publishCommand, [dir, '--to', to, '--key', key, ...(force ? ['--force'] : [])], {
    home: work,
    cwd,
  });
  expect(res.code, res.err).toBe(0);
  return res.out.trim();
}

async function entryOf(home: string, name = 'registry_echo'): Promise<LockEntry | undefined> {
  return (await readLock(storeLayout(home).lock)).tools[name];
}

async function install(home: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return run(installCommand, args, { home, cwd });
}

describe('install --locked', () => {
  it('installs from a lockfile after the OCI tag moved and gets the old bytes', async () => {
    const repo = `oci://${registry.host}/locked/case${++repoCounter}/registry_echo`;
    const first = await publish(src('1.0.0'), `${repo}:stable`);
    const a = await store('a');
    expect((await install(a, [`${repo}:stable`, '--yes', '--quiet'])).code).toBe(0);
    const pinned = await entryOf(a);
    expect(pinned?.pinned).toBe(`${repo}@${first}`);
    expect(pinned?.resolved).toBe(first);

    await publish(src('1.1.0'), `${repo}:stable`); // the tag moves to other bytes
    const c = await store('c');
    const followed = await install(c, [`${repo}:stable`, '--yes', '--quiet']);
    expect(followed.out).toBe('installed registry_echo@1.1.0 signed by pub\n');

    const b = await store('b');
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--yes', '--quiet']);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0\n');
    expect((await entryOf(b))?.digests['module.wasm']).toBe(digestOf(readFileSync(wasm1)));
    expect(await entryOf(b)).toEqual(pinned);
    expect((await run(verifyCommand, [], { home: b, cwd })).code).toBe(0);
  });

  it('installs from a lockfile after the HTTP index range moved and gets the old bytes', async () => {
    await publish(src('1.0.0'), site);
    const index = `${server.url}/index.json#registry_echo@^1.0.0`;
    const a = await store('a');
    expect((await install(a, [index, '--yes', '--quiet'])).code).toBe(0);
    const pinned = await entryOf(a);
    expect(pinned?.pinned).toBe(`${server.url}/index.json#registry_echo@=1.0.0`);
    expect(pinned?.resolved).toBe(digestOf(readFileSync(join(site, 'packages/registry_echo-1.0.0.tgz'))));

    await publish(src('1.1.0'), site); // ^1.0.0 now resolves to 1.1.0
    const b = await store('b');
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--yes', '--quiet']);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0\n');
    expect(await entryOf(b)).toEqual(pinned);
  });

  it('a version re-published with other bytes refuses the whole lockfile before downloading, and installs nothing', async () => {
    await publish(src('1.0.0'), site);
    await publish(src('1.0.0', 'other_echo'), site);
    const a = await store('a');
    expect((await install(a, [`${server.url}/index.json#registry_echo`, '--yes', '--quiet'])).code).toBe(0);
    expect((await install(a, [`${server.url}/index.json#other_echo`, '--yes', '--quiet'])).code).toBe(0);
    await publish(src('1.0.0', 'registry_echo', { hosts: ['exfil.example.net'] }), site, true);

    const b = await store('b');
    server.hits.length = 0;
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--yes', '--quiet']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DIGEST_MISMATCH');
    expect(res.err).toContain('registry_echo@1.0.0 as sha256:');
    expect(res.err).toContain('the lockfile pins');
    expect(server.hits.filter((h) => h.endsWith('registry_echo-1.0.0.tgz'))).toEqual([]);
    expect((await readLock(storeLayout(b).lock)).tools).toEqual({});
  });

  it('a folder whose files changed since the lock was written is refused', async () => {
    const dir = src('1.0.0');
    const a = await store('a');
    expect((await install(a, [dir, '--yes', '--allow-unsigned', '--quiet'])).code).toBe(0);
    expect((await entryOf(a))?.pinned).toBe(dir);
    expect((await entryOf(a))?.resolved).toMatch(/^sha256:[0-9a-f]{64}$/);
    writeFileSync(join(dir, 'README.md'), '# changed\n');
    const b = await store('b');
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`error DIGEST_MISMATCH: ${dir}: resolves to sha256:`);
    expect((await readLock(storeLayout(b).lock)).tools).toEqual({});
  });

  it("a store's own lockfile repairs what is missing and leaves intact tools alone", async () => {
    await publish(src('1.0.0'), site);
    const a = await store('a');
    expect((await install(a, [`${server.url}/index.json#registry_echo`, '--yes', '--quiet'])).code).toBe(0);
    server.hits.length = 0;
    const same = await install(a, ['--locked', '--quiet']);
    expect(same.code, same.err).toBe(0);
    expect(same.out).toBe('unchanged registry_echo@1.0.0\n');
    expect(server.hits).toEqual([]);

    const moduleDigest = (await entryOf(a))?.digests['module.wasm'] ?? '';
    rmSync(join(storeLayout(a).blobs, moduleDigest.slice('sha256:'.length)), { force: true });
    const repaired = await install(a, ['--locked', '--yes', '--quiet']);
    expect(repaired.code, repaired.err).toBe(0);
    expect(repaired.out).toBe('installed registry_echo@1.0.0\n');
    expect((await run(verifyCommand, [], { home: a, cwd })).code).toBe(0);
  });

  it('a tool the lockfile pins as signed is refused in a store that does not trust its key', async () => {
    await publish(src('1.0.0'), site);
    const a = await store('a');
    expect((await install(a, [`${server.url}/index.json#registry_echo`, '--yes', '--quiet'])).code).toBe(0);
    const b = join(cwd, 'untrusting');
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error UNKNOWN_SIGNER: registry_echo@1.0.0: the lockfile pins it as signed by pub');
    expect((await readLock(storeLayout(b).lock)).tools).toEqual({});
  });

  it('an untrusted signer the lockfile pins fails before any request, naming the signer and the trust command; after it, the same command installs', async () => {
    await publish(src('1.0.0'), site);
    await publish(src('1.0.0', 'other_echo'), site);
    const a = await store('a');
    for (const tool of ['registry_echo', 'other_echo'])
      expect((await install(a, [`${server.url}/index.json#${tool}`, '--yes', '--quiet'])).code).toBe(0);
    const keyId = (await entryOf(a))?.signer?.keyId ?? '';
    expect(keyId).toMatch(/^ed25519:[0-9a-f]{16}$/);

    const b = join(cwd, 'fresh');
    server.hits.length = 0;
    const refused = await toolgate(b, ['install', '--locked', join(a, 'toolgate.lock'), '--yes']);
    expect(refused.code, refused.err).toBe(1);
    expect(refused.err).toContain(
      `error UNKNOWN_SIGNER: other_echo@1.0.0, registry_echo@1.0.0: the lockfile pins them as signed by pub (${keyId})`,
    );
    expect(refused.err).toContain('nothing was downloaded');
    expect(refused.err).toContain('`toolgate trust add pub pub.key.pub`');
    expect(server.hits).toEqual([]);
    expect((await readLock(storeLayout(b).lock)).tools).toEqual({});

    // The README's steps as written: trust the publisher key, then install --locked.
    expect((await toolgate(b, ['trust', 'add', 'pub', `${key}.pub`])).code).toBe(0);
    const installed = await toolgate(b, ['install', '--locked', join(a, 'toolgate.lock'), '--yes']);
    expect(installed.code, installed.err).toBe(0);
    expect(installed.out).toBe('installed other_echo@1.0.0\ninstalled registry_echo@1.0.0\n');
    expect(server.hits.filter((h) => h.endsWith('.tgz')).sort()).toEqual([
      '/packages/other_echo-1.0.0.tgz',
      '/packages/registry_echo-1.0.0.tgz',
    ]);
  });

  it('needs consent (--yes) without a terminal; the review names each signer and that it is trusted', async () => {
    await publish(src('1.0.0'), site);
    const a = await store('a');
    expect((await install(a, [`${server.url}/index.json#registry_echo`, '--yes', '--quiet'])).code).toBe(0);
    const b = await store('b');
    const res = await install(b, ['--locked', join(a, 'toolgate.lock'), '--quiet']);
    expect(res.code).toBe(2);
    expect(res.err).toContain('error CONSENT_REQUIRED');
    expect(res.err).toContain('registry_echo@1.0.0 (');
    expect(res.err).toMatch(/registry_echo@1\.0\.0: signed by pub \(ed25519:[0-9a-f]{16}\), a trusted publisher key\n/);
  });

  it('bad input: a missing or malformed lockfile, or too many arguments, is refused naming the file', async () => {
    const b = await store('b');
    const missing = await install(b, ['--locked', join(cwd, 'nope.lock')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`error NOT_FOUND: ${join(cwd, 'nope.lock')}: cannot read the lockfile`);
    const bad = join(cwd, 'bad.lock');
    writeFileSync(bad, JSON.stringify({ lockfileVersion: 1, tools: { registry_echo: { version: '1.0.0' } } }));
    const malformed = await install(b, ['--locked', bad]);
    expect(malformed.code).toBe(1);
    expect(malformed.err).toContain(`error STORE_CORRUPT: ${bad}: tools.registry_echo.source:`);
    const two = await install(b, ['--locked', bad, bad]);
    expect(two.code).toBe(2);
    expect(two.err).toContain('expected 0-1 argument(s), got 2');
    const none = await install(b, []);
    expect(none.code).toBe(2);
    expect(none.err).toContain('expected exactly 1 argument(s), got 0');
  });
});
