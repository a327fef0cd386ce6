// A tool written in JavaScript (module.abi: component) through the registries: published to a
// static index folder and to a real OCI registry (Debian's docker-registry on 127.0.0.1), installed
// by its pinned digest, run, and refused once its component changed. The component file is all the
// tool runs (toolgate's glue for the world is toolgate's own), so it is what the package carries,
// the signature covers and the lockfile pins (docs/registry.md, "Packages"; docs/authoring-ts.md).
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runShipped } from '../support/shipped-cli.js';
import { removeDir, serveStatic, startRegistry, tempDir, type OciRegistry } from './helpers.js';

const COMPONENT = resolve(import.meta.dirname, '../fixtures/build/js_hostile.wasm');
const ECHO = '{"mode":"echo","text":"from the registry"}';

interface Lock {
  tools: Record<
    string,
    { resolved: string; pinned: string; digests: Record<string, string>; signer: { name: string } | null }
  >;
}

let work: string;
let key: string;
let component: Buffer;
let digest: string;
let registry: OciRegistry;
let cwd: string;
let home: string;
let toolCounter = 0;

const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function toolgate(argv: string[], at = home): Promise<{ code: number; out: string; err: string }> {
  return runShipped(argv, { cwd, env: { TOOLGATE_HOME: at }, timeoutMs: 120_000 });
}

/** An author's folder: the built component and its manifest. */
function toolDir(name: string): string {
  const dir = join(cwd, `src-${name}`);
  mkdirSync(dir, { recursive: true });
  copyFileSync(COMPONENT, join(dir, 'js_tool.wasm'));
  writeFileSync(
    join(dir, 'manifest.yaml'),
    [
      'apiVersion: toolgate/v1',
      `name: ${name}`,
      'version: 1.0.0',
      'description: A JavaScript tool that echoes its text back.',
      'module: { path: ./js_tool.wasm, abi: component }',
      'parameters:',
      '  mode: { type: string, required: true }',
      '  text: { type: string }',
      'output: { schema: { type: object } }',
      'capabilities: { timeout_ms: 10000, memory: { max_pages: 512 } }',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'README.md'), `# ${name}\n`);
  return dir;
}

function lockOf(at = home): Lock {
  return JSON.parse(readFileSync(join(at, 'toolgate.lock'), 'utf8')) as Lock;
}

/** The installed tool answers one call with what the component computes. */
async function expectRuns(name: string, at = home): Promise<void> {
  const called = await toolgate(['call', name, '--args', ECHO, '--json'], at);
  expect(called.code, called.err).toBe(0);
  expect((JSON.parse(called.out) as { structuredContent?: unknown }).structuredContent).toEqual({
    echo: 'from the registry',
  });
}

/** What the lockfile pins is the component itself, and the store's manifest runs exactly that blob. */
function expectComponentPinned(name: string): void {
  const entry = lockOf().tools[name];
  expect(entry?.digests['module.wasm']).toBe(digest);
  // no file of the package but module.wasm is code: the manifest, the README and nothing else
  expect(Object.keys(entry?.digests ?? {}).sort()).toEqual(['README.md', 'manifest.yaml', 'module.wasm']);
  const installed = readFileSync(join(home, 'tools', name, 'manifest.yaml'), 'utf8');
  const hex = digest.slice('sha256:'.length);
  expect(installed).toContain(`../../blobs/sha256/${hex}`);
  expect(installed).toContain(`sha256: ${hex}`);
  expect(installed).toContain('abi: component');
}

beforeAll(async () => {
  work = tempDir('component');
  key = join(work, 'pub.key');
  component = readFileSync(COMPONENT);
  digest = sha256(component);
  expect((await runShipped(['keygen', '--out', key], { cwd: work, env: { TOOLGATE_HOME: work } })).code).toBe(0);
  registry = await startRegistry();
});
afterAll(async () => {
  await registry?.close();
  removeDir(work);
});
beforeEach(async () => {
  cwd = tempDir('component-case');
  home = join(cwd, 'home');
  expect((await toolgate(['trust', 'add', 'pub', `${key}.pub`])).code).toBe(0);
});
afterEach(() => removeDir(cwd));

describe('a JavaScript tool from a registry carries and pins the component it runs', () => {
  it('published to an index folder and installed from it, it runs, pinned by its digest', async () => {
    const name = `js_tool${++toolCounter}`;
    const site = join(cwd, 'site');
    const published = await toolgate(['publish', toolDir(name), '--to', site, '--key', key]);
    expect(published.code, published.err).toBe(0);
    const index = JSON.parse(readFileSync(join(site, 'index.json'), 'utf8')) as {
      tools: Record<string, { versions: Record<string, { files: Record<string, string> }> }>;
    };
    expect(index.tools[name]?.versions['1.0.0']?.files['module.wasm']).toBe(digest);
    const server = await serveStatic(site);
    try {
      const installed = await toolgate(['install', `${server.url}/index.json#${name}@1.0.0`, '--yes']);
      expect(installed.code, installed.err).toBe(0);
      expect(installed.out).toBe(`installed ${name}@1.0.0 signed by pub\n`);
    } finally {
      await server.close();
    }
    expectComponentPinned(name);
    expect(lockOf().tools[name]?.pinned).toContain(`#${name}@=1.0.0`);
    await expectRuns(name);
  }, 120_000);

  it('published to an OCI registry, installed by its manifest digest, it runs; install --locked gets the same bytes into a fresh store', async () => {
    const name = `js_tool${++toolCounter}`;
    const repo = `oci://${registry.host}/tools/${name}`;
    const published = await toolgate(['publish', toolDir(name), '--to', `${repo}:1.0.0`, '--key', key]);
    expect(published.code, published.err).toBe(0);
    const manifestDigest = published.out.trim();
    expect(manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const installed = await toolgate(['install', `${repo}@${manifestDigest}`, '--yes']);
    expect(installed.code, installed.err).toBe(0);
    expectComponentPinned(name);
    expect(lockOf().tools[name]).toMatchObject({ resolved: manifestDigest, pinned: `${repo}@${manifestDigest}` });
    await expectRuns(name);
    const fresh = join(cwd, 'fresh-home');
    expect((await toolgate(['trust', 'add', 'pub', `${key}.pub`], fresh)).code).toBe(0);
    const locked = await toolgate(['install', '--locked', join(home, 'toolgate.lock'), '--yes'], fresh);
    expect(locked.code, locked.err).toBe(0);
    expect(lockOf(fresh).tools[name]?.digests['module.wasm']).toBe(digest);
    await expectRuns(name, fresh);
  }, 180_000);
});

describe('a changed component is refused', () => {
  it('changed in the OCI registry storage: DIGEST_MISMATCH while it downloads, and nothing is installed', async () => {
    const name = `js_tool${++toolCounter}`;
    const repo = `oci://${registry.host}/tools/${name}`;
    expect((await toolgate(['publish', toolDir(name), '--to', `${repo}:1.0.0`, '--key', key])).code).toBe(0);
    const hex = digest.slice('sha256:'.length);
    const blob = join(registry.storage, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
    const bytes = Buffer.from(component);
    // a byte inside the tool's own core module: the world's skeleton is untouched
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    writeFileSync(blob, bytes);
    try {
      const res = await toolgate(['install', `${repo}:1.0.0`, '--yes']);
      expect(res.code).toBe(1);
      expect(res.err).toContain('error DIGEST_MISMATCH');
      expect(res.err).toContain('module.wasm: downloaded bytes have digest');
      expect(lockOf.bind(null, home)).toThrow();
    } finally {
      // blobs are shared by every repository of the registry: later cases get the real bytes
      writeFileSync(blob, component);
    }
  }, 120_000);

  it("changed in the store after install: call refuses to load it, naming the blob and the lockfile's pin, and verify fails", async () => {
    const name = `js_tool${++toolCounter}`;
    const installed = await toolgate(['install', toolDir(name), '--yes', '--allow-unsigned']);
    expect(installed.code, installed.err).toBe(0);
    await expectRuns(name);
    const blob = join(home, 'blobs/sha256', digest.slice('sha256:'.length));
    const bytes = Buffer.from(component);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    chmodSync(blob, 0o644);
    writeFileSync(blob, bytes);
    const called = await toolgate(['call', name, '--args', ECHO]);
    expect(called.code).toBe(2);
    expect(called.err).toContain(`tool "${name}" did not load`);
    expect(called.err).toContain(`${blob}: module.wasm: blob has digest ${sha256(bytes)}, the lockfile pins ${digest}`);
    const verified = await toolgate(['verify']);
    expect(verified.code).toBe(1);
    expect(verified.out + verified.err).toContain(`${name}: ${blob}: module.wasm: blob has digest`);
  }, 120_000);

  it('a manifest outside the store that pins module.sha256 refuses a component that is not the pinned one', async () => {
    const dir = toolDir(`js_tool${++toolCounter}`);
    const manifest = join(dir, 'manifest.yaml');
    const hex = digest.slice('sha256:'.length);
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('abi: component }', `abi: component, sha256: "${hex}" }`),
    );
    await expectRunsFrom(dir);
    const bytes = Buffer.from(component);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    writeFileSync(join(dir, 'js_tool.wasm'), bytes);
    const called = await toolgate(['call', `js_tool${toolCounter}`, '--manifests', dir, '--args', ECHO]);
    expect(called.code).toBe(2);
    expect(called.err).toContain(
      `${manifest}: module.sha256: does not match ${join(dir, 'js_tool.wasm')}: expected ${hex}, actual ${sha256(bytes).slice('sha256:'.length)}`,
    );
  }, 120_000);
});

async function expectRunsFrom(dir: string): Promise<void> {
  const called = await toolgate(['call', `js_tool${toolCounter}`, '--manifests', dir, '--args', ECHO, '--json']);
  expect(called.code, called.err).toBe(0);
  expect((JSON.parse(called.out) as { structuredContent?: unknown }).structuredContent).toEqual({
    echo: 'from the registry',
  });
}
