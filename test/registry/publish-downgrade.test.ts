// A registry that hands a publish's upload to plain http: the shipped `toolgate publish` against a
// real registry (Debian's docker-registry on 127.0.0.1) behind an https front (a certificate made
// here, trusted through NODE_EXTRA_CA_CERTS). The upload's Location is held to the download rule:
// from https down to http is refused, loopback too (docs/decisions.md, "Registry transport: no
// downgrade, one deadline").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { buildWat, removeDir, run, startRegistry, tempDir, writeToolDir, type OciRegistry } from './helpers.js';
import { selfSignedCert } from '../tls-cert.js';

let work: string;
let wasm: string;
let caFile: string;
let registry: OciRegistry;
let front: Server;
let frontPort: number;
/** What the front does with the registry's upload Location: pass it on, or point it at plain http. */
let downgrade = false;
const seen: string[] = [];

/** Forwards to the registry as a TLS-terminating proxy does; optionally rewrites the upload Location. */
function forward(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
  seen.push(`${req.method} ${req.url}`);
  const [host, port] = registry.host.split(':');
  const upstream = httpRequest(
    {
      host,
      port: Number(port),
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-proto': 'https' },
    },
    (answer) => {
      const headers = { ...answer.headers };
      const location = headers.location;
      if (downgrade && typeof location === 'string' && req.method === 'POST') {
        const u = new URL(location, `https://${req.headers.host}`);
        headers.location = `http://${registry.host}${u.pathname}${u.search}`;
      }
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

beforeAll(async () => {
  work = tempDir('publish-downgrade');
  wasm = buildWat('registry_echo', work);
  const { keyFile, certFile } = selfSignedCert(work, '/CN=localhost', 'DNS:localhost,IP:127.0.0.1');
  caFile = certFile;
  registry = await startRegistry();
  front = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, forward);
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  frontPort = (front.address() as AddressInfo).port;
});
afterAll(async () => {
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  await registry?.close();
  removeDir(work);
});

/** The blobs the registry holds (distribution's filesystem layout). */
function storedBlobs(): string[] {
  const dir = join(registry.storage, 'docker/registry/v2/blobs/sha256');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((p) => readdirSync(join(dir, p)));
}

async function publish(repo: string) {
  const cwd = tempDir('publish-downgrade-case');
  try {
    const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm });
    // `localhost`, not 127.0.0.1: a loopback address is spoken to over plain http (oci.ts baseUrl)
    return await run(publishCommand, [dir, '--to', `oci://localhost:${frontPort}/${repo}:1.0.0`], {
      home: join(cwd, 'home'),
      cwd,
      env: { NODE_EXTRA_CA_CERTS: caFile },
    });
  } finally {
    removeDir(cwd);
  }
}

describe('a publish to an https registry keeps to https', () => {
  it('an upload Location on plain http (a real registry on 127.0.0.1) is refused as a downgrade, naming both URLs, and no blob reaches it', async () => {
    downgrade = true;
    seen.length = 0;
    const r = await publish('tools/downgraded/registry_echo');
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error INSECURE_TRANSPORT');
    expect(r.err).toContain(
      `https://localhost:${frontPort}/v2/tools/downgraded/registry_echo/blobs/uploads/ hands the upload to http://${registry.host}/v2/tools/downgraded/registry_echo/blobs/uploads/`,
    );
    expect(r.err).toContain('going from https down to plain http is refused (a downgrade)');
    // the upload was started through the front, and no byte went anywhere after
    expect(seen.filter((s) => s.startsWith('PUT'))).toEqual([]);
    expect(storedBlobs()).toEqual([]);
  });

  it('the same registry handing back an https Location publishes (only the downgrade is refused)', async () => {
    downgrade = false;
    seen.length = 0;
    const r = await publish('tools/kept/registry_echo');
    expect(r.code, r.err).toBe(0);
    expect(seen.some((s) => s.startsWith('PUT /v2/tools/kept/registry_echo/manifests/1.0.0'))).toBe(true);
    expect(storedBlobs().length).toBeGreaterThanOrEqual(3);
  });
});
