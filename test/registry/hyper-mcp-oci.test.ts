// hyper-mcp plugins as their publishers push them, in a real docker-registry: an ORAS artifact
// (artifact type application/vnd.hyper-mcp.plugin.v2, empty config, one application/wasm layer) and
// a FROM scratch image whose gzip layer tar holds /plugin.wasm (OCI and Docker media types). Both
// install through the shipped command, with the user's manifest or a drafted one that grants
// nothing, and are then served; hostile layers, a tampered blob and a missing consent are refused.
// Modules: the C v2 plugin (test/fixtures/hyper_v2.c) and the Rust v1 plugin (hyper_v1.rs).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { readLock, readManifest, storeLayout, writeTar } from '../../host/src/registry/index.js';
import { startStdio } from '../server/helpers.js';
import { runShipped } from '../support/shipped-cli.js';
import { removeDir, run, startRegistry, tempDir, type OciRegistry } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const V2 = readFileSync(join(ROOT, 'test/fixtures/build/hyper_v2.wasm'));
const V1 = readFileSync(join(ROOT, 'test/fixtures/build/hyper_v1.wasm'));
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

let registry: OciRegistry;
let proxy: { host: string; hits: string[]; tamper: Set<string>; close(): Promise<void> };
let cwd: string;
let home: string;
let counter = 0;

const digest = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Forwards to the registry, records requests, and flips a byte of any blob named in `tamper`. */
async function startProxy(target: string): Promise<typeof proxy> {
  const hits: string[] = [];
  const tamper = new Set<string>();
  const [host, port] = target.split(':');
  const srv: Server = createServer((req, res) => {
    hits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const up = httpRequest(
      { host, port: Number(port), path: req.url, method: req.method, headers: req.headers },
      (r) => {
        const bad = [...tamper].some((d) => (req.url ?? '').endsWith(`/blobs/${d}`));
        if (!bad) {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const body = Buffer.concat(chunks);
          body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 0xff;
          res.writeHead(r.statusCode ?? 502, { ...r.headers, 'content-length': String(body.length) }).end(body);
        });
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(srv.address() as AddressInfo).port}`,
    hits,
    tamper,
    close: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))),
  };
}

async function pushBlob(repo: string, bytes: Uint8Array): Promise<void> {
  const base = `http://${registry.host}/v2/${repo}`;
  const start = await fetch(`${base}/blobs/uploads/`, { method: 'POST' });
  const url = new URL(start.headers.get('location') ?? '', base);
  url.searchParams.set('digest', digest(bytes));
  const put = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  expect(put.status).toBe(201);
}

/** digest -> size of every manifest pushed (an index names its entries by both). */
const manifestSizes = new Map<string, number>();

async function pushManifest(repo: string, tag: string, manifest: object, mediaType: string): Promise<string> {
  const body = Buffer.from(JSON.stringify(manifest));
  manifestSizes.set(digest(body), body.length);
  const put = await fetch(`http://${registry.host}/v2/${repo}/manifests/${tag}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': mediaType },
  });
  expect(put.status, await put.text()).toBe(201);
  return digest(body);
}

/** `oras push REF --artifact-type application/vnd.hyper-mcp.plugin.v2 ./plugin.wasm:application/wasm`, by hand. */
async function pushOras(repo: string, tag: string, wasm: Uint8Array): Promise<string> {
  const config = Buffer.from('{}');
  await pushBlob(repo, config);
  await pushBlob(repo, wasm);
  return pushManifest(
    repo,
    tag,
    {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: 'application/vnd.hyper-mcp.plugin.v2',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: digest(config), size: 2, data: 'e30=' },
      layers: [
        {
          mediaType: 'application/wasm',
          digest: digest(wasm),
          size: wasm.length,
          annotations: { 'org.opencontainers.image.title': 'plugin.wasm' },
        },
      ],
      annotations: { 'org.opencontainers.image.created': '2026-01-01T00:00:00Z' },
    },
    OCI_MANIFEST,
  );
}

/** An image built FROM scratch with one gzip tar layer; docker=true uses Docker's media types. */
async function pushImage(repo: string, tag: string, layerTar: Buffer, docker = false): Promise<string> {
  const layer = gzipSync(layerTar);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: [digest(layerTar)] },
      config: {},
    }),
  );
  await pushBlob(repo, config);
  await pushBlob(repo, layer);
  const mediaType = docker ? DOCKER_MANIFEST : OCI_MANIFEST;
  return pushManifest(
    repo,
    tag,
    {
      schemaVersion: 2,
      mediaType,
      config: {
        mediaType: docker
          ? 'application/vnd.docker.container.image.v1+json'
          : 'application/vnd.oci.image.config.v1+json',
        digest: digest(config),
        size: config.length,
      },
      layers: [
        {
          mediaType: docker
            ? 'application/vnd.docker.image.rootfs.diff.tar.gzip'
            : 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: digest(layer),
          size: layer.length,
        },
      ],
    },
    mediaType,
  );
}

/** A layer tar as GNU tar writes it in PAX format, of a folder holding these files (`./`, PAX headers). */
function gnuTar(files: Record<string, Uint8Array>): Buffer {
  const dir = join(cwd, `layer-${++counter}`);
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
  return execFileSync('/usr/bin/tar', ['--format=pax', '-C', dir, '-cf', '-', '.'], { maxBuffer: 1 << 28 });
}

/** A tar whose first entry's header is rewritten: its type, or the size it claims. */
function craftedTar(name: string, data: Uint8Array, change: { type?: string; size?: number }): Buffer {
  const tar = writeTar([{ name, data }]);
  if (change.type !== undefined) tar.write(change.type, 156, 'ascii');
  if (change.size !== undefined) tar.write(`${change.size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  tar.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i] ?? 0;
  tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return tar;
}

/** An image index naming `image` for each platform given. */
async function pushIndex(
  repo: string,
  tag: string,
  image: string,
  platforms: Array<[string, string]>,
): Promise<string> {
  const mediaType = 'application/vnd.oci.image.index.v1+json';
  const manifests = platforms.map(([os, architecture]) => ({
    mediaType: OCI_MANIFEST,
    digest: image,
    size: manifestSizes.get(image),
    platform: { os, architecture },
  }));
  return pushManifest(repo, tag, { schemaVersion: 2, mediaType, manifests }, mediaType);
}

/** A tar whose first entry is a PAX extended header naming the next entry `paxPath`. */
function paxTar(ustarName: string, paxPath: string, data: Uint8Array): Buffer {
  const record = (n: number): string => `${n} path=${paxPath}\n`;
  let len = record(0).length;
  while (record(len).length !== len) len = record(len).length;
  const tar = writeTar([
    { name: 'PaxHeaders/0', data: Buffer.from(record(len)) },
    { name: ustarName, data },
  ]);
  tar.write('x', 156, 'ascii');
  tar.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i] ?? 0;
  tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return tar;
}

const install = (args: string[], opts: { h?: string; isTTY?: boolean; stdin?: string } = {}) =>
  run(installCommand, args, {
    home: opts.h ?? home,
    cwd,
    ...(opts.isTTY !== undefined ? { isTTY: opts.isTTY } : {}),
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
  });
const call = (tool: string, args: object) =>
  runShipped(['call', tool, '--args', JSON.stringify(args), '--policies', 'none'], {
    cwd,
    env: { TOOLGATE_HOME: home },
  });
const repoName = (name: string): string => `hyper/case${++counter}/${name}`;

function userManifest(name: string, abi = 'hyper-mcp', extra: string[] = []): string {
  const file = join(cwd, `${name}-${++counter}.yaml`);
  writeFileSync(
    file,
    [
      'apiVersion: toolgate/v1',
      `name: ${name}`,
      'version: 1.0.0',
      `description: ${name} plugin`,
      `module: { path: plugin.wasm, abi: ${abi} }`,
      ...extra,
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  registry = await startRegistry();
  proxy = await startProxy(registry.host);
});
afterAll(async () => {
  await proxy?.close();
  await registry?.close();
});
beforeEach(() => {
  cwd = tempDir('hyper');
  home = join(cwd, 'home');
  proxy.hits.length = 0;
  proxy.tamper.clear();
});
afterEach(() => removeDir(cwd));

describe('hyper-mcp plugins from OCI registries', () => {
  it('an ORAS artifact installs with --draft-manifest, the review lists every tool, resource, template and prompt, and call serves <plugin>__<tool>', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('hyper-v2');
    const artifact = await pushOras(repo, '1.4.0', V2);
    const res = await install([
      `oci://${registry.host}/${repo}:1.4.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed hyper_v2@1.4.0\n');
    expect(res.err).toContain('this manifest was drafted from the module');
    expect(res.err).toContain('  | name: hyper_v2');
    expect(res.err).toContain('  |   abi: hyper-mcp');
    expect(res.err).toContain('hyper_v2 serves what its module describes (pinned in the lockfile):');
    for (const line of [
      '  tool hyper_v2__record: Appends a short note to /data/calls.log.',
      '  tool hyper_v2__envelope: Answers the call input it received, as text.',
      '  tool hyper_v2__picture:',
      "  resource mem://fixture/readme (readme): The fixture's readme",
      '  resource template mem://fixture/items/{id} (item)',
      '  prompt greeting (arguments: who): Greets someone',
    ])
      expect(res.err).toContain(line);
    const entry = (await readLock(storeLayout(home).lock)).tools['hyper_v2'];
    expect(entry?.resolved).toBe(artifact);
    expect(entry?.pinned).toBe(`oci://${registry.host}/${repo}@${artifact}`);
    expect(entry?.digests['module.wasm']).toBe(digest(V2));
    expect(entry?.manifestFile).toBeUndefined();
    const served = await call('hyper_v2__envelope', { probe: 7 });
    expect(served.code, served.err).toBe(0);
    expect(served.out).toContain('"probe":7');
  });

  it('serve --stdio serves an installed ORAS plugin: its tools as <plugin>__<tool>, its resources and prompts', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('served');
    await pushOras(repo, '1.0.0', V2);
    const res = await install([
      `oci://${registry.host}/${repo}:1.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    const stdio = await startStdio(['--policies', 'none'], { env: { TOOLGATE_HOME: home }, cwd });
    try {
      const names = (await stdio.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['served__record', 'served__envelope', 'served__picture']));
      expect((await stdio.client.listResources()).resources.map((r) => r.uri)).toContain('mem://fixture/readme');
      expect((await stdio.client.listPrompts()).prompts.map((p) => p.name)).toContain('greeting');
      const r = await stdio.client.callTool({ name: 'served__envelope', arguments: { probe: 1 } });
      expect(r.isError ?? false).toBe(false);
      expect(JSON.stringify(r.content)).toContain('probe');
    } finally {
      await stdio.close();
    }
  });

  it('a drafted manifest grants nothing: no hosts, paths, config, secrets or client features, so a tool that writes a file fails', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('writer');
    await pushOras(repo, 'nightly', V2);
    const res = await install([
      `oci://${registry.host}/${repo}:nightly`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed writer@0.0.0\n');
    const file = join(storeLayout(home).tools, 'writer', 'manifest.yaml');
    const m = readManifest(readFileSync(file, 'utf8'), file);
    expect(m.module.abi).toBe('hyper-mcp');
    expect(m.capabilities).toMatchObject({ hosts: [], paths: [], config: {}, secrets: [], mcp: [] });
    const written = await call('writer__record', { note: 'hi' });
    expect(written.code).toBe(1);
    expect(written.out).toContain('cannot open'); // the module found no /data mount to write into
  });

  it('without a terminal, --yes alone does not accept a draft: refused before any blob is downloaded, naming --manifest and --draft-manifest', async () => {
    const repo = repoName('nodraft');
    await pushOras(repo, '1.0.0', V2);
    const res = await install([`oci://${proxy.host}/${repo}:1.0.0`, '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error BAD_PACKAGE');
    expect(res.err).toContain(
      'is a hyper-mcp plugin artifact (application/vnd.hyper-mcp.plugin.v2) with no toolgate manifest',
    );
    expect(res.err).toContain('pass --manifest FILE');
    expect(res.err).toContain('--draft-manifest');
    expect(proxy.hits.filter((h) => h.includes('/blobs/'))).toEqual([]);
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
  });

  it('on a terminal the draft is shown and asked about before anything is written; "n" installs nothing', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('asked');
    await pushOras(repo, '1.0.0', V2);
    const declined = await install([`oci://${registry.host}/${repo}:1.0.0`, '--allow-unsigned', '--quiet'], {
      isTTY: true,
      stdin: 'n\n',
    });
    expect(declined.code).toBe(1);
    expect(declined.err).toContain('  | name: asked');
    expect(declined.err).toContain('Install asked@1.0.0 with the drafted manifest above (it grants nothing)? [y/N]');
    expect(declined.err).toContain('CONSENT_DECLINED');
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
    const accepted = await install([`oci://${registry.host}/${repo}:1.0.0`, '--allow-unsigned', '--quiet'], {
      isTTY: true,
      stdin: 'y\n',
    });
    expect(accepted.code, accepted.err).toBe(0);
    expect(Object.keys((await readLock(storeLayout(home).lock)).tools)).toEqual(['asked']);
  });

  it('a FROM scratch image (GNU tar layer with ./ and PAX headers) installs with the user manifest and serves the v1 plugin', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('time-plugin');
    const image = await pushImage(repo, 'v2.0.1', gnuTar({ 'plugin.wasm': V1 }));
    const manifest = userManifest('rstime');
    const res = await install([
      `oci://${registry.host}/${repo}:v2.0.1`,
      '--manifest',
      manifest,
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed rstime@1.0.0\n');
    expect(res.err).toContain('rstime serves what its module describes (pinned in the lockfile):');
    expect(res.err).toContain('  tool rstime__echo: Echoes text back (v1).');
    const entry = (await readLock(storeLayout(home).lock)).tools['rstime'];
    expect(entry?.resolved).toBe(image);
    expect(entry?.digests['module.wasm']).toBe(digest(V1));
    const served = await call('rstime__echo', { text: 'hello' });
    expect(served.code, served.err).toBe(0);
    expect(served.out).toContain('hello');
  });

  it('an image with Docker media types installs by @sha256 digest reference, and install --locked drafts the same manifest again', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('dockered');
    const image = await pushImage(repo, 'latest', writeTar([{ name: 'plugin.wasm', data: V2 }]), true);
    const res = await install([
      `oci://${registry.host}/${repo}@${image}`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    const fresh = join(cwd, 'fresh');
    const locked = await install(['--locked', storeLayout(home).lock, '--yes', '--allow-unsigned', '--quiet'], {
      h: fresh,
    });
    expect(locked.code, locked.err).toBe(0);
    const a = (await readLock(storeLayout(home).lock)).tools['dockered'];
    const b = (await readLock(storeLayout(fresh).lock)).tools['dockered'];
    expect(b?.installedManifest).toBe(a?.installedManifest);
    expect(b?.digests).toEqual(a?.digests);
  });

  it('an image index takes its linux/amd64 entry, pinned by the index digest; an index without one is refused naming its platforms', {
    timeout: 60_000,
  }, async () => {
    const repo = repoName('indexed');
    const image = await pushImage(repo, 'image', writeTar([{ name: 'plugin.wasm', data: V2 }]));
    const index = await pushIndex(repo, '3.0.0', image, [
      ['linux', 'arm64'],
      ['linux', 'amd64'],
    ]);
    const res = await install([
      `oci://${registry.host}/${repo}:3.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed indexed@3.0.0\n');
    const entry = (await readLock(storeLayout(home).lock)).tools['indexed'];
    expect(entry?.resolved).toBe(index);
    expect(entry?.pinned).toBe(`oci://${registry.host}/${repo}@${index}`);
    await pushIndex(repo, 'arm', image, [['linux', 'arm64']]);
    const none = await install(
      [`oci://${registry.host}/${repo}:arm`, '--draft-manifest', '--yes', '--allow-unsigned', '--quiet'],
      { h: join(cwd, 'other') },
    );
    expect(none.code).toBe(1);
    expect(none.err).toContain('the image index has no linux/amd64 or wasip1/wasm entry (it lists linux/arm64)');
  });

  it('a hyper-mcp package from a folder is reviewed the same way: every tool by its served name', {
    timeout: 60_000,
  }, async () => {
    const dir = join(cwd, 'folder');
    mkdirSync(dir);
    writeFileSync(join(dir, 'plugin.wasm'), V1);
    writeFileSync(
      join(dir, 'manifest.yaml'),
      readFileSync(userManifest('folder'), 'utf8').replace('path: plugin.wasm', 'path: ./plugin.wasm'),
    );
    const res = await install([dir, '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code, res.err).toBe(0);
    expect(res.err).toContain('folder serves what its module describes (pinned in the lockfile):');
    expect(res.err).toContain('  tool folder__add: Adds two numbers.');
  });

  it('a hyper-mcp plugin as a .wasm file drafts its manifest named after the file; a module that is no plugin cannot be drafted', {
    timeout: 60_000,
  }, async () => {
    const file = join(cwd, 'Clock-Plugin.wasm');
    writeFileSync(file, V2);
    const res = await install([file, '--draft-manifest', '--yes', '--allow-unsigned', '--quiet']);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toBe('installed clock_plugin@0.0.0\n');
    const greet = join(cwd, 'greet.wasm');
    writeFileSync(greet, readFileSync(join(ROOT, 'pdk-examples/wat/build/greet.wasm')));
    const refusedGreet = await install([greet, '--draft-manifest', '--yes', '--allow-unsigned', '--quiet']);
    expect(refusedGreet.code).toBe(1);
    expect(refusedGreet.err).toContain('no manifest can be drafted: the module is not a hyper-mcp plugin');
  });

  it('a supplied manifest for a hyper-mcp plugin must say module.abi: hyper-mcp', async () => {
    const repo = repoName('wrongabi');
    await pushOras(repo, '1.0.0', V2);
    const res = await install([
      `oci://${registry.host}/${repo}:1.0.0`,
      '--manifest',
      userManifest('wrongabi', 'toolgate'),
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error BAD_MANIFEST');
    expect(res.err).toContain('module.abi: must be hyper-mcp');
  });

  it('--manifest with --draft-manifest is a usage error', async () => {
    const res = await install([
      'oci://127.0.0.1:1/x/y:1',
      '--manifest',
      userManifest('x'),
      '--draft-manifest',
      '--yes',
    ]);
    expect(res.code).toBe(2);
    expect(res.err).toContain('--manifest and --draft-manifest cannot be combined');
  });
});

describe('hostile plugin images are refused, naming the reason', () => {
  const refused = async (layerTar: Buffer): Promise<string> => {
    const repo = repoName('hostile');
    await pushImage(repo, '1.0.0', layerTar);
    const res = await install([
      `oci://${registry.host}/${repo}:1.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
    return res.err;
  };

  it('an entry ../plugin.wasm climbs out of the image', async () => {
    expect(await refused(writeTar([{ name: '../plugin.wasm', data: V2 }]))).toContain(
      'entry "../plugin.wasm" climbs out of the image with ".."',
    );
  });

  it('a symbolic link (or hard link) where plugin.wasm should be', async () => {
    expect(await refused(craftedTar('plugin.wasm', new Uint8Array(0), { type: '2' }))).toContain(
      'only regular files are allowed (type "2": a symbolic link)',
    );
    expect(await refused(craftedTar('plugin.wasm', new Uint8Array(0), { type: '1' }))).toContain('a hard link');
  });

  it('a PAX path record decides the entry name: ../plugin.wasm behind an innocent ustar name is refused, plugin.wasm behind another name is taken', {
    timeout: 60_000,
  }, async () => {
    expect(await refused(paxTar('plugin.wasm', '../plugin.wasm', V2))).toContain(
      'entry "../plugin.wasm" climbs out of the image',
    );
    const repo = repoName('paxed');
    await pushImage(repo, '1.0.0', paxTar('renamed.bin', 'plugin.wasm', V2));
    const res = await install([
      `oci://${registry.host}/${repo}:1.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code, res.err).toBe(0);
    expect((await readLock(storeLayout(home).lock)).tools['paxed']?.digests['module.wasm']).toBe(digest(V2));
  });

  it('two wasm files are two candidates', async () => {
    const err = await refused(gnuTar({ 'plugin.wasm': V2, 'lib/other.wasm': V1 }));
    expect(err).toContain('the image holds more than one wasm candidate');
    expect(err).toContain('plugin.wasm');
    expect(err).toContain('other.wasm');
  });

  it('a wasm file anywhere but /plugin.wasm is not the plugin', async () => {
    expect(await refused(writeTar([{ name: 'app/plugin.wasm', data: V2 }]))).toContain(
      'the image has no /plugin.wasm (it holds "app/plugin.wasm")',
    );
  });

  it('an entry larger than a module may be is refused from its header, before its bytes are read', async () => {
    const err = await refused(craftedTar('plugin.wasm', V2, { size: 100 * 1024 * 1024 }));
    expect(err).toContain('error TOO_LARGE');
    expect(err).toContain('entry "plugin.wasm" is 104857600 bytes');
  });

  it('a layer whose bytes do not match its digest is DIGEST_MISMATCH, and nothing is installed', async () => {
    const repo = repoName('tampered');
    const layerTar = writeTar([{ name: 'plugin.wasm', data: V2 }]);
    await pushImage(repo, '1.0.0', layerTar);
    proxy.tamper.add(digest(gzipSync(layerTar)));
    const res = await install([
      `oci://${proxy.host}/${repo}:1.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DIGEST_MISMATCH');
    expect((await readLock(storeLayout(home).lock)).tools).toEqual({});
  });

  it('an ORAS layer whose bytes do not match its digest is DIGEST_MISMATCH', async () => {
    const repo = repoName('tampered-oras');
    await pushOras(repo, '1.0.0', V2);
    proxy.tamper.add(digest(V2));
    const res = await install([
      `oci://${proxy.host}/${repo}:1.0.0`,
      '--draft-manifest',
      '--yes',
      '--allow-unsigned',
      '--quiet',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('error DIGEST_MISMATCH');
  });
});
