// A hostile publisher's plugin image (FROM scratch, the module at /plugin.wasm) against the shipped
// `toolgate install --draft-manifest`: its layer tar holds the module as a symlink or a hard link,
// climbs out with `..` (plainly or through a PAX path record), hides a second module, or spells
// /plugin.wasm with a lookalike. A content-addressed registry on 127.0.0.1 serves real digests, so
// each refusal is the layer's, and the same image with a plain /plugin.wasm installs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { removeDir, run, tempDir } from './helpers.js';
import { type TarEntry, tarOf } from './tar-entries.js';

const MODULE = readFileSync(join(import.meta.dirname, '../fixtures/build/hyper_v2.wasm'));
const sha = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** One PAX record, "<length> key=value\n", its length counting its own digits. */
function paxRecord(key: string, value: string): Buffer {
  const rest = ` ${key}=${value}\n`;
  let length = rest.length + 1;
  while (String(length).length + rest.length !== length) length = String(length).length + rest.length;
  return Buffer.from(`${length}${rest}`);
}

let work: string;
let server: Server;
let registry: string;
const blobs = new Map<string, Buffer>();
const manifests = new Map<string, Buffer>();

/** Publishes an image whose one layer is `entries`, under `tag`. */
function publish(tag: string, entries: readonly TarEntry[]): void {
  const config = Buffer.from('{"architecture":"wasm","os":"wasip1"}');
  const layer = tarOf(entries);
  blobs.set(sha(config), config);
  blobs.set(sha(layer), layer);
  manifests.set(
    tag,
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: sha(layer), size: layer.length }],
      }),
    ),
  );
}

beforeAll(async () => {
  work = tempDir('oci-layer-tricks');
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    const m = /\/manifests\/(.+)$/.exec(path);
    const body = m !== null ? manifests.get(decodeURIComponent(m[1] ?? '')) : blobs.get(path.split('/blobs/')[1] ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    const type = m !== null ? 'application/vnd.oci.image.manifest.v1+json' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  registry = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  removeDir(work);
});

async function install(tag: string) {
  const home = join(work, `home-${tag}`);
  const r = await run(
    installCommand,
    [`oci://${registry}/evil/plugin:${tag}`, '--yes', '--allow-unsigned', '--draft-manifest'],
    { home, cwd: work },
  );
  const tools = join(home, 'tools');
  return { ...r, installed: existsSync(tools) ? readdirSync(tools) : [] };
}

describe('a plugin image layer with path tricks is refused; a plain one installs', () => {
  it('control: /plugin.wasm as a regular file installs (the registry and the image are sound)', async () => {
    publish('control', [{ name: 'plugin.wasm', data: MODULE }]);
    const r = await install('control');
    expect(r.code, r.err).toBe(0);
    expect(r.installed.length).toBe(1);
  });

  const cases: [string, TarEntry[], RegExp][] = [
    ['symlink', [{ name: 'plugin.wasm', data: Buffer.alloc(0), type: '2', link: '/etc/passwd' }], /only regular files/],
    [
      'hardlink',
      [
        { name: 'real.bin', data: MODULE },
        { name: 'plugin.wasm', data: Buffer.alloc(0), type: '1', link: 'real.bin' },
      ],
      /only regular files/,
    ],
    ['dotdot', [{ name: '../plugin.wasm', data: MODULE }], /climbs out of the image with "\.\."/],
    ['dotdot-inside', [{ name: 'x/../../plugin.wasm', data: MODULE }], /climbs out of the image/],
    [
      'pax-dotdot',
      [
        { name: 'PaxHeader', data: paxRecord('path', '../../../plugin.wasm'), type: 'x' },
        { name: 'harmless', data: MODULE },
      ],
      /climbs out of the image/,
    ],
    [
      'second-module',
      [
        { name: 'plugin.wasm', data: MODULE },
        { name: 'lib/evil.wasm', data: MODULE },
      ],
      /more than one wasm candidate/,
    ],
    ['uppercase', [{ name: 'PLUGIN.WASM', data: MODULE }], /has no \/plugin\.wasm/],
    ['lookalike', [{ name: 'plug\u0456n.wasm', data: MODULE }], /has no \/plugin\.wasm/],
    ['zero-width', [{ name: 'plugin.wasm\u200b', data: MODULE }], /has no \/plugin\.wasm/],
    ['device', [{ name: 'plugin.wasm', data: Buffer.alloc(0), type: '3' }], /only regular files/],
  ];
  for (const [tag, entries, refusal] of cases) {
    it(`${tag}: refused (BAD_PACKAGE), nothing installed`, async () => {
      publish(tag, entries);
      const r = await install(tag);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain('error BAD_PACKAGE');
      expect(r.err).toMatch(refusal);
      expect(r.installed).toEqual([]);
    });
  }
});
