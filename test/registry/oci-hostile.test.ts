// A hostile OCI registry against the shipped `toolgate install`: image manifests that declare many
// or huge layers, a huge config blob or a huge manifest document. Each is refused from the manifest
// alone, before any blob is requested (a real HTTP server on 127.0.0.1 that records every path).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { removeDir, run, tempDir } from './helpers.js';

const MiB = 1024 * 1024;
const digest = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;
const layer = (mediaType: string, size: number, n: number, title?: string) => ({
  mediaType,
  digest: digest(n),
  size,
  ...(title !== undefined ? { annotations: { 'org.opencontainers.image.title': title } } : {}),
});
const config = (size: number) => ({ mediaType: 'application/vnd.wasm.config.v0+json', digest: digest(0), size });

let cwd: string;
let server: Server;
let registry: string;
let hits: string[];
let manifestBody: string;

beforeEach(async () => {
  cwd = tempDir('oci-hostile');
  hits = [];
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    if (path.includes('/manifests/')) {
      res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }).end(manifestBody);
      return;
    }
    // a blob: 1 MiB of zeros, then the end (never what was declared; the test wants no blob asked for)
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(MiB));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  registry = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  removeDir(cwd);
});

const install = () =>
  run(installCommand, [`oci://${registry}/evil/tool:1.0.0`, '--yes', '--allow-unsigned'], {
    home: join(cwd, 'home'),
    cwd,
  });

function manifestOf(parts: Record<string, unknown>): string {
  return JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', ...parts });
}

const blobsAsked = (): string[] => hits.filter((h) => h.includes('/blobs/'));

describe('an OCI manifest is held to the package limits before any blob is downloaded', () => {
  it('a package whose layers are declared larger than the package limit in all is refused (TOO_LARGE), no blob asked for', async () => {
    manifestBody = manifestOf({
      config: config(2),
      layers: [
        layer('application/vnd.toolgate.manifest.v1+yaml', 40 * MiB, 1),
        layer('application/wasm', 40 * MiB, 2),
        layer('text/markdown', 40 * MiB, 3),
      ],
    });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TOO_LARGE');
    expect(r.err).toMatch(/the blobs to download are declared as \d+ bytes in all, more than the package limit/);
    expect(blobsAsked()).toEqual([]);
  });

  it('a layer declared at 2^60 bytes is refused by the manifest schema, nothing fetched (held before this round)', async () => {
    manifestBody = manifestOf({
      config: config(2),
      layers: [layer('application/vnd.toolgate.manifest.v1+yaml', 100, 1), layer('application/wasm', 2 ** 60, 2)],
    });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error BAD_PACKAGE');
    expect(r.err).toContain('layers.1.size');
    expect(blobsAsked()).toEqual([]);
  });

  it('a config blob declared at 32 MiB is refused before it is fetched', async () => {
    manifestBody = manifestOf({
      config: config(32 * MiB),
      layers: [layer('application/vnd.toolgate.manifest.v1+yaml', 100, 1), layer('application/wasm', 100, 2)],
    });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain(`the config blob is declared as ${32 * MiB} bytes`);
    expect(blobsAsked()).toEqual([]);
  });

  it('a plain wasm artifact whose one layer is declared over the limit is refused before it is fetched', async () => {
    manifestBody = manifestOf({ config: config(2), layers: [layer('application/wasm', 65 * MiB, 2)] });
    const r = await run(
      installCommand,
      [`oci://${registry}/evil/tool:1.0.0`, '--yes', '--allow-unsigned', '--draft-manifest'],
      { home: join(cwd, 'home'), cwd },
    );
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TOO_LARGE');
    expect(blobsAsked()).toEqual([]);
  });

  it('ten thousand layers are refused by the manifest schema (held before this round)', async () => {
    manifestBody = manifestOf({
      config: config(2),
      layers: Array.from({ length: 10_000 }, (_, i) => layer('text/plain', 1, i + 10)),
    });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error BAD_PACKAGE');
    expect(blobsAsked()).toEqual([]);
  });

  it('a manifest document of 8 MiB is refused while it streams (held before this round)', async () => {
    manifestBody = manifestOf({ config: config(2), layers: [], pad: 'x'.repeat(8 * MiB) });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TOO_LARGE');
    expect(blobsAsked()).toEqual([]);
  });

  it('many link layers under the limit each, over it together, are refused before any is fetched', async () => {
    manifestBody = manifestOf({
      config: config(2),
      layers: [
        layer('application/vnd.toolgate.manifest.v1+yaml', 100, 1),
        layer('application/wasm', 100, 2),
        ...Array.from({ length: 8 }, (_, i) =>
          layer('application/vnd.toolgate.link.v1+wasm', 10 * MiB, 100 + i, `link-${i + 1}.wasm`),
        ),
      ],
    });
    const r = await install();
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TOO_LARGE');
    expect(blobsAsked()).toEqual([]);
  });
});
