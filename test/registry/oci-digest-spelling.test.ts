// A digest is `sha256:<64 lowercase hex>` wherever an OCI document or reference gives one: another
// algorithm or an uppercase spelling is refused before anything is fetched by it, through the
// shipped command, against a registry on 127.0.0.1 that serves only what the test wrote.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShipped } from '../support/shipped-cli.js';

const INDEX = 'application/vnd.oci.image.index.v1+json';
const hex = createHash('sha256').update('plugin').digest('hex');
const sha512 = createHash('sha512').update('plugin').digest('hex');

/** Each tag's image index, with one linux/amd64 entry of the given digest. */
const entries: Record<string, string> = {
  other: `sha512:${sha512}`,
  upper: `sha256:${hex.toUpperCase()}`,
};

let server: Server;
let host: string;
let dir: string;
const hits: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-oci-digest-'));
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const tag = /^\/v2\/plugins\/p\/manifests\/(\w+)$/.exec(req.url ?? '')?.[1];
    const digest = tag === undefined ? undefined : entries[tag];
    if (digest === undefined) return void res.writeHead(404).end();
    const body = JSON.stringify({
      schemaVersion: 2,
      mediaType: INDEX,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest,
          size: 10,
          platform: { os: 'linux', architecture: 'amd64' },
        },
      ],
    });
    res.writeHead(200, { 'content-type': INDEX }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

const install = (ref: string) =>
  runShipped(['install', ref, '--yes', '--draft-manifest', '--allow-unsigned', '--quiet'], {
    cwd: dir,
    env: { TOOLGATE_HOME: join(dir, 'home'), HOME: dir },
  });

describe('an OCI digest is sha256 in lowercase hex, or refused before it is fetched', () => {
  it.each([
    ['sha512', `sha512:${sha512}`],
    ['uppercase sha256', `sha256:${hex.toUpperCase()}`],
  ])('a reference by a %s digest is refused and nothing is requested', async (_what, digest) => {
    hits.length = 0;
    const res = await install(`oci://${host}/plugins/p@${digest}`);
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('@sha256:<64 hex>');
    expect(hits).toEqual([]);
  });

  it.each([
    ['sha512', 'other'],
    ['uppercase sha256', 'upper'],
  ])(
    'an image index whose entry has a %s digest is refused BAD_PACKAGE, and the entry is never requested',
    async (_what, tag) => {
      hits.length = 0;
      const res = await install(`oci://${host}/plugins/p:${tag}`);
      expect(res.code).toBe(1);
      expect(res.err).toContain('error BAD_PACKAGE');
      expect(res.err).toContain('manifests.0.digest');
      expect(hits).toEqual([`/v2/plugins/p/manifests/${tag}`]);
    },
  );
});
