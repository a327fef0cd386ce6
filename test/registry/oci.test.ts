// Publishing to and installing from a real OCI registry (Debian's docker-registry, distribution 2.8)
// started on 127.0.0.1 for this file: the CNCF wasm layout, streamed digest checks, signatures
// carried as annotations, and the lockfile refusing a downgrade offered under a newer tag.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { keygenCommand } from '../../host/src/cli/commands/registry-keygen.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { trustAddCommand } from '../../host/src/cli/commands/registry-trust.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import {
  digestOf,
  OCI_ANNOTATIONS,
  OCI_MEDIA,
  packageFromDir,
  publishPackage,
  readLock,
  storeLayout,
} from '../../host/src/registry/index.js';
import { buildWat, removeDir, run, startRegistry, tempDir, writeToolDir, type OciRegistry } from './helpers.js';

let work: string;
let wasm1: string;
let wasm2: string;
let key: string;
let registry: OciRegistry;
let cwd: string;
let home: string;
let repoCounter = 0;
let repo: string;

beforeAll(async () => {
  work = tempDir('ocisuite');
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
  home = join(cwd, 'home');
  repo = `oci://${registry.host}/tools/case${++repoCounter}/registry_echo`;
  expect((await run(trustAddCommand, ['pub', `${key}.pub`], { home, cwd })).code).toBe(0);
});
afterEach(() => removeDir(cwd));

async function publish(version: string, tag: string, opts: { sign?: boolean; hosts?: string[] } = {}): Promise<string> {
  const dir = writeToolDir(join(cwd, `src-${version}-${tag}`), {
    version,
    wasm: version.startsWith('1') ? wasm1 : wasm2,
    hosts: opts.hosts ?? [],
  });
  const res = await run(
    publishCommand,
    [dir, '--to', `${repo}:${tag}`, ...(opts.sign === false ? [] : ['--key', key])],
    { home, cwd },
  );
  expect(res.code, res.err).toBe(0);
  return res.out.trim();
}

function blobFile(digest: string): string {
  const hex = digest.slice('sha256:'.length);
  return join(registry.storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', hex.slice(0, 2), hex, 'data');
}

describe('OCI registry', () => {
  it('publishes in the CNCF wasm artifact layout with the signature as annotations', async () => {
    const manifestDigest = await publish('1.0.0', '1.0.0');
    expect(manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const path = repo.slice('oci://'.length).split('/').slice(1).join('/');
    const res = await fetch(`http://${registry.host}/v2/${path}/manifests/1.0.0`, {
      headers: { accept: OCI_MEDIA.manifest },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-content-digest')).toBe(manifestDigest);
    const manifest = (await res.json()) as {
      config: { mediaType: string };
      layers: Array<{ mediaType: string; digest: string }>;
      annotations: Record<string, string>;
    };
    expect(manifest.config.mediaType).toBe('application/vnd.wasm.config.v0+json');
    expect(manifest.layers.map((l) => l.mediaType)).toEqual([
      'application/wasm',
      'application/vnd.toolgate.manifest.v1+yaml',
      'text/markdown',
    ]);
    expect(manifest.layers[0]?.digest).toBe(digestOf(readFileSync(wasm1)));
    expect(manifest.annotations[OCI_ANNOTATIONS.signer]).toMatch(/^ed25519:[0-9a-f]{16}$/);
    expect(manifest.annotations[OCI_ANNOTATIONS.version]).toBe('1.0.0');
  });

  it('installs a signed tool by tag, pinning the manifest digest the tag resolved to', async () => {
    const manifestDigest = await publish('1.0.0', '1.0.0');
    const res = await run(installCommand, [`${repo}:1.0.0`, '--yes'], { home, cwd });
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0 signed by pub\n');
    const entry = (await readLock(storeLayout(home).lock)).tools['registry_echo'];
    expect(entry?.resolved).toBe(manifestDigest);
    expect(entry?.source).toBe(`${repo}:1.0.0`);
    expect((await run(verifyCommand, [], { home, cwd })).code).toBe(0);
    const byDigest = await run(installCommand, [`${repo}@${manifestDigest}`, '--yes'], { home, cwd });
    expect(byDigest.out).toBe('unchanged registry_echo@1.0.0 signed by pub\n');
  });

  it('a blob changed in the registry storage is refused as DIGEST_MISMATCH while streaming', async () => {
    await publish('1.0.0', '1.0.0');
    const file = blobFile(digestOf(readFileSync(wasm1)));
    const original = readFileSync(file);
    const bytes = Buffer.from(original);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    writeFileSync(file, bytes);
    try {
      const res = await run(installCommand, [`${repo}:1.0.0`, '--yes'], { home, cwd });
      expect(res.code).toBe(1);
      expect(res.err).toContain('error DIGEST_MISMATCH');
      expect(res.err).toContain('module.wasm: downloaded bytes have digest');
      expect(res.err).not.toContain('installed');
    } finally {
      // Blobs are shared by every repository of the registry; later cases must get the real bytes.
      writeFileSync(file, original);
    }
  });

  it('a tool manifest layer replaced by someone with push rights fails the signature', async () => {
    await publish('1.0.0', '1.0.0');
    const path = repo.slice('oci://'.length).split('/').slice(1).join('/');
    const published = (await (
      await fetch(`http://${registry.host}/v2/${path}/manifests/1.0.0`, { headers: { accept: OCI_MEDIA.manifest } })
    ).json()) as { annotations: Record<string, string> };
    const signer = {
      keyId: published.annotations[OCI_ANNOTATIONS.signer] ?? '',
      signature: published.annotations[OCI_ANNOTATIONS.signature] ?? '',
    };
    const evil = await packageFromDir(
      writeToolDir(join(cwd, 'evil'), { version: '1.0.0', wasm: wasm1, hosts: ['exfil.example.net'] }),
    );
    await publishPackage(
      { ...evil, signature: { signer: signer.keyId, signature: signer.signature } },
      `${repo}:1.0.0`,
      { insecure: false, force: false },
    );
    const res = await run(installCommand, [`${repo}:1.0.0`, '--yes', '--allow-unsigned'], { home, cwd });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error BAD_SIGNATURE');
  });

  it('a lower version offered under a newer tag is refused by the lockfile', async () => {
    await publish('2.0.0', '2.0.0');
    expect((await run(installCommand, [`${repo}:2.0.0`, '--yes'], { home, cwd })).code).toBe(0);
    await publish('1.0.0', 'latest');
    const res = await run(installCommand, [`${repo}:latest`, '--yes'], { home, cwd });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DOWNGRADE: registry_echo@1.0.0 is lower than the installed 2.0.0');
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.version).toBe('2.0.0');
  });

  it('an unsigned artifact is refused, and accepted with --allow-unsigned', async () => {
    await publish('1.0.0', 'unsigned', { sign: false });
    const refused = await run(installCommand, [`${repo}:unsigned`, '--yes'], { home, cwd });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('error UNSIGNED');
    const accepted = await run(installCommand, [`${repo}:unsigned`, '--yes', '--allow-unsigned'], { home, cwd });
    expect(accepted.code, accepted.err).toBe(0);
    expect(accepted.err).toContain('WARNING: registry_echo@1.0.0 is not signed');
  });

  it('a missing tag is NOT_FOUND', async () => {
    const res = await run(installCommand, [`${repo}:9.9.9`, '--yes'], { home, cwd });
    expect(res.code).toBe(1);
    expect(res.err).toContain('error NOT_FOUND');
  });

  // A running `toolgate serve` picking an install up: test/registry/serve-pickup.test.ts.
});
