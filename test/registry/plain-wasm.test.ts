// Plain WebAssembly modules: a CNCF wasm OCI artifact pushed by another tool (config
// application/vnd.wasm.config.v0+json, one application/wasm layer) in a real docker-registry, a
// .wasm URL and a .wasm file install with a manifest the user supplies (--manifest), pinned by
// digest; without it the refusal names the missing layer and comes before the module is downloaded.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { verifyCommand } from '../../host/src/cli/commands/registry-verify.js';
import { installedManifestDirs, readLock, storeLayout } from '../../host/src/registry/index.js';
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
let wasm: Buffer;
let wasm2: Buffer;
let registry: OciRegistry;
let proxy: { host: string; hits: string[]; close(): Promise<void> };
let cwd: string;
let home: string;
let site: string;
let server: StaticServer;
let counter = 0;

const digest = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Forwards to the registry and records every request, so a test can see what was downloaded. */
async function startProxy(target: string): Promise<typeof proxy> {
  const hits: string[] = [];
  const [host, port] = target.split(':');
  const srv: Server = createServer((req, res) => {
    hits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const up = httpRequest(
      { host, port: Number(port), path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(srv.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))),
  };
}

/** Pushes a plain wasm artifact the way other tools publish one (raw distribution API). */
async function pushPlain(
  repo: string,
  tag: string,
  layers: Array<{ mediaType: string; bytes: Uint8Array }>,
): Promise<string> {
  const base = `http://${registry.host}/v2/${repo}`;
  const config = Buffer.from(
    JSON.stringify({ architecture: 'wasm', os: 'wasip1', layerDigests: layers.map((l) => digest(l.bytes)) }),
  );
  for (const bytes of [config, ...layers.map((l) => l.bytes)]) {
    const start = await fetch(`${base}/blobs/uploads/`, { method: 'POST' });
    const url = new URL(start.headers.get('location') ?? '', base);
    url.searchParams.set('digest', digest(bytes));
    const put = await fetch(url, {
      method: 'PUT',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(put.status).toBe(201);
  }
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.wasm.config.v0+json', digest: digest(config), size: config.length },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: digest(l.bytes), size: l.bytes.length })),
    }),
  );
  const put = await fetch(`${base}/manifests/${tag}`, {
    method: 'PUT',
    body: manifest,
    headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
  });
  expect(put.status).toBe(201);
  return digest(manifest);
}

beforeAll(async () => {
  work = tempDir('plain');
  wasm = readFileSync(buildWat('registry_echo', work));
  wasm2 = readFileSync(buildWat('registry_echo_v2', work));
  registry = await startRegistry();
  proxy = await startProxy(registry.host);
});
afterAll(async () => {
  await proxy?.close();
  await registry?.close();
  removeDir(work);
});
beforeEach(async () => {
  cwd = tempDir('case');
  home = join(cwd, 'home');
  site = join(cwd, 'site');
  server = await serveStatic(site);
});
afterEach(async () => {
  await server.close();
  removeDir(cwd);
});

/** The user's manifest for the module (its module.path is replaced by the pinned module). */
function userManifest(extra: { sha256?: string } = {}): string {
  const dir = writeToolDir(join(cwd, `manifest-${++counter}`), {
    version: '1.0.0',
    wasm: join(work, 'registry_echo.wasm'),
  });
  const file = join(dir, 'manifest.yaml');
  if (extra.sha256 !== undefined)
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('  entry: registry_echo', `  entry: registry_echo\n  sha256: ${extra.sha256}`),
    );
  return file;
}

const install = (args: string[], h = home) => run(installCommand, args, { home: h, cwd });

describe('plain wasm OCI artifacts', () => {
  it('without --manifest the refusal names the missing layer type, before the wasm layer is downloaded', async () => {
    const repo = `plain/case${++counter}/echo`;
    await pushPlain(repo, '1', [{ mediaType: 'application/wasm', bytes: wasm }]);
    proxy.hits.length = 0;
    const res = await install([`oci://${proxy.host}/${repo}:1`, '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error BAD_PACKAGE');
    expect(res.err).toContain('has no application/vnd.toolgate.manifest.v1+yaml layer (layers: application/wasm)');
    expect(res.err).toContain('pass --manifest FILE');
    expect(proxy.hits.some((h) => h.startsWith('GET') && h.includes('/manifests/1'))).toBe(true);
    expect(proxy.hits.filter((h) => h.includes('/blobs/'))).toEqual([]);
  });

  it('with --manifest it installs, pinning the artifact digest and the module digest', async () => {
    const repo = `plain/case${++counter}/echo`;
    const artifact = await pushPlain(repo, 'latest', [{ mediaType: 'application/wasm', bytes: wasm }]);
    const manifest = userManifest();
    const res = await install([
      `oci://${registry.host}/${repo}`,
      '--manifest',
      manifest,
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed registry_echo@1.0.0\n');
    const entry = (await readLock(storeLayout(home).lock)).tools['registry_echo'];
    expect(entry?.resolved).toBe(artifact);
    expect(entry?.pinned).toBe(`oci://${registry.host}/${repo}@${artifact}`);
    expect(entry?.manifestFile).toBe(manifest);
    expect(entry?.digests['module.wasm']).toBe(digest(wasm));
    expect((await run(verifyCommand, [], { home, cwd })).code).toBe(0);
    expect((await installedManifestDirs(home)).dirs).toHaveLength(1);
  });

  it('install --locked gets the pinned artifact again after its tag moved', async () => {
    const repo = `plain/case${++counter}/echo`;
    await pushPlain(repo, 'stable', [{ mediaType: 'application/wasm', bytes: wasm }]);
    const manifest = userManifest();
    expect(
      (
        await install([
          `oci://${registry.host}/${repo}:stable`,
          '--manifest',
          manifest,
          '--yes',
          '--allow-unsigned',
          '--quiet',
        ])
      ).code,
    ).toBe(0);
    await pushPlain(repo, 'stable', [{ mediaType: 'application/wasm', bytes: wasm2 }]);
    const fresh = join(cwd, 'fresh');
    const res = await install(['--locked', storeLayout(home).lock, '--yes', '--allow-unsigned', '--quiet'], fresh);
    expect(res.code, res.err).toBe(0);
    expect((await readLock(storeLayout(fresh).lock)).tools['registry_echo']?.digests['module.wasm']).toBe(digest(wasm));
  });

  it("the user's module.sha256 must be the artifact's module digest", async () => {
    const repo = `plain/case${++counter}/echo`;
    await pushPlain(repo, '1', [{ mediaType: 'application/wasm', bytes: wasm }]);
    const manifest = userManifest({ sha256: digest(wasm2).slice('sha256:'.length) });
    const res = await install([
      `oci://${registry.host}/${repo}:1`,
      '--manifest',
      manifest,
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain(`error DIGEST_MISMATCH: ${manifest}: module.sha256`);
  });

  it('an artifact with two wasm layers, or a layer that is not wasm, is refused', async () => {
    const two = `plain/case${++counter}/echo`;
    await pushPlain(two, '1', [
      { mediaType: 'application/wasm', bytes: wasm },
      { mediaType: 'application/wasm', bytes: wasm2 },
    ]);
    const res = await install([
      `oci://${registry.host}/${two}:1`,
      '--manifest',
      userManifest(),
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('must have exactly one application/wasm layer');
    const fake = `plain/case${++counter}/echo`;
    await pushPlain(fake, '1', [{ mediaType: 'application/wasm', bytes: Buffer.from('#!/bin/sh\necho not wasm\n') }]);
    const notWasm = await install([
      `oci://${registry.host}/${fake}:1`,
      '--manifest',
      userManifest(),
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(notWasm.code).toBe(1);
    expect(notWasm.err).toContain('error BAD_PACKAGE');
    expect(notWasm.err).toContain('module.wasm');
  });

  it('--manifest with a toolgate package, or with --locked, is refused', async () => {
    const dir = writeToolDir(join(cwd, 'pkg'), { version: '1.0.0', wasm: join(work, 'registry_echo.wasm') });
    const res = await install([dir, '--manifest', userManifest(), '--yes', '--allow-unsigned']);
    expect(res.code).toBe(2);
    expect(res.err).toContain('error BAD_REFERENCE');
    expect(res.err).toContain('--manifest is only for plain wasm modules');
    const locked = await install(['--locked', '--manifest', userManifest()]);
    expect(locked.code).toBe(2);
    expect(locked.err).toContain('--manifest cannot be combined with --locked');
  });
});

describe('plain .wasm files and URLs', () => {
  it('a .wasm URL installs with --manifest; without it the refusal comes before any request', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'echo.wasm'), wasm);
    const url = `${server.url}/echo.wasm`;
    const refused = await install([url, '--yes', '--allow-unsigned', '--quiet']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `error BAD_PACKAGE: ${url}: is a plain WebAssembly module with no toolgate manifest; pass --manifest FILE`,
    );
    expect(server.hits).toEqual([]);
    const res = await install([url, '--manifest', userManifest(), '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code, res.err).toBe(0);
    const entry = (await readLock(storeLayout(home).lock)).tools['registry_echo'];
    expect(entry?.resolved).toBe(digest(wasm));
    expect(entry?.pinned).toBe(url);
  });

  it('a .wasm file installs with --manifest; a missing manifest file is named', async () => {
    const file = join(cwd, 'echo.wasm');
    writeFileSync(file, wasm);
    const missing = await install([file, '--manifest', join(cwd, 'nope.yaml'), '--yes', '--allow-unsigned', '--quiet']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(join(cwd, 'nope.yaml'));
    const res = await install([file, '--manifest', userManifest(), '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code, res.err).toBe(0);
    expect((await readLock(storeLayout(home).lock)).tools['registry_echo']?.digests['module.wasm']).toBe(digest(wasm));
  });
});
