// A hostile or broken registry against the shipped `toolgate install`: an https index that redirects
// down to plain http (even on loopback), and registries that trickle their bytes. Real servers on
// 127.0.0.1 (https with a certificate made here and trusted through NODE_EXTRA_CA_CERTS).
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCommand } from '../../host/src/cli/commands/registry-install.js';
import { publishCommand } from '../../host/src/cli/commands/registry-publish.js';
import { buildWat, removeDir, run, serveStatic, tempDir, writeToolDir, type StaticServer } from './helpers.js';
import { selfSignedCert } from '../tls-cert.js';

let work: string;
let wasm: string;
let caFile: string;
let tls: { key: Buffer; cert: Buffer };

beforeAll(() => {
  work = tempDir('transport');
  wasm = buildWat('registry_echo', work);
  const { keyFile, certFile } = selfSignedCert(work, '/CN=127.0.0.1', 'IP:127.0.0.1');
  caFile = certFile;
  tls = { key: readFileSync(keyFile), cert: readFileSync(caFile) };
});
afterAll(() => removeDir(work));

let cwd: string;
let home: string;
let site: string;
let plain: StaticServer;
const servers: Server[] = [];

beforeEach(async () => {
  cwd = tempDir('transport-case');
  home = join(cwd, 'home');
  site = join(cwd, 'site');
  plain = await serveStatic(site);
  const dir = writeToolDir(join(cwd, 'src'), { version: '1.0.0', wasm });
  const published = await run(publishCommand, [dir, '--to', site], { home, cwd });
  expect(published.code, published.err).toBe(0);
});
afterEach(async () => {
  await plain.close();
  for (const s of servers.splice(0)) {
    (s as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    await new Promise<void>((r) => s.close(() => r()));
  }
  removeDir(cwd);
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const httpsServer = (handler: Handler): Promise<string> => listen(createHttpsServer(tls, handler));
const httpServer = (handler: Handler): Promise<string> => listen(createHttpServer(handler));

const install = (ref: string, more: string[] = []) =>
  run(installCommand, [ref, '--yes', '--allow-unsigned', ...more], {
    home,
    cwd,
    env: { NODE_EXTRA_CA_CERTS: caFile },
  });

/** Sends the headers at once, then one byte every `everyMs`; stops by itself after `maxBytes`. */
function drip(res: ServerResponse, everyMs: number, maxBytes: number): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(maxBytes) });
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= maxBytes || res.destroyed) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write('x');
    sent++;
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

describe('a redirect from https down to http is a downgrade', () => {
  it('an https index that redirects to http on 127.0.0.1 is refused without --insecure, naming both URLs and the rule', async () => {
    const tls = await httpsServer((req, res) => res.writeHead(302, { location: `${plain.url}${req.url}` }).end());
    const from = `https://${tls}/index.json`;
    const r = await install(`${from}#registry_echo@1.0.0`);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error INSECURE_TRANSPORT');
    expect(r.err).toContain(`${from} redirects to ${plain.url}/index.json`);
    expect(r.err).toContain('going from https down to plain http is refused (a downgrade)');
    expect(r.err).toContain('--insecure');
    expect(plain.hits).toEqual([]); // nothing was asked of the plain server
  });

  it('with --insecure the same redirect is followed and the install completes', async () => {
    const tls = await httpsServer((req, res) => res.writeHead(302, { location: `${plain.url}${req.url}` }).end());
    const r = await install(`https://${tls}/index.json#registry_echo@1.0.0`, ['--insecure']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('installed registry_echo@1.0.0');
    expect(plain.hits).toContain('/index.json');
  });

  it('an https index that lists its package at an http URL on 127.0.0.1 is refused the same way; --insecure allows it', async () => {
    const index = JSON.parse(readFileSync(join(site, 'index.json'), 'utf8')) as {
      tools: Record<string, { versions: Record<string, { url: string }> }>;
    };
    for (const v of Object.values(index.tools['registry_echo']?.versions ?? {})) v.url = `${plain.url}/${v.url}`;
    const listed = Buffer.from(JSON.stringify(index));
    const tls = await httpsServer((_req, res) => res.writeHead(200, { 'content-length': listed.length }).end(listed));
    const from = `https://${tls}/index.json`;
    const r = await install(`${from}#registry_echo@1.0.0`);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error INSECURE_TRANSPORT');
    expect(r.err).toContain(`${from} lists the package at ${plain.url}/packages/`);
    expect(plain.hits).toEqual([]);
    const allowed = await install(`${from}#registry_echo@1.0.0`, ['--insecure']);
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain('installed registry_echo@1.0.0');
  });

  it('a redirect from https to https is followed without --insecure (only the downgrade is refused)', async () => {
    const target = await httpsServer((req, res) => {
      const body = readFileSync(join(site, new URL(req.url ?? '/', 'https://x').pathname));
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    const first = await httpsServer((req, res) =>
      res.writeHead(302, { location: `https://${target}${req.url}` }).end(),
    );
    const r = await install(`https://${first}/index.json#registry_echo@1.0.0`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('installed registry_echo@1.0.0');
  });
});

describe('an install has one overall deadline', () => {
  it('an index that trickles its bytes ends in TIMEOUT within --timeout, naming the URL and the deadline', async () => {
    const slow = await httpServer((_req, res) => drip(res, 50, 2000));
    const url = `http://${slow}/index.json`;
    const started = Date.now();
    const r = await install(`${url}#registry_echo@1.0.0`, ['--timeout', '1500']);
    const took = Date.now() - started;
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TIMEOUT');
    expect(r.err).toContain('within its deadline of 1500 ms');
    expect(r.err).toContain(url);
    // the per-request limit is 60 s; the install's deadline cut it off long before
    expect(took).toBeLessThan(15_000);
  });

  it('the deadline spans requests: a fast index and a package that trickles still end in TIMEOUT', async () => {
    const index = readFileSync(join(site, 'index.json'));
    const slow = await httpServer((req, res) => {
      if (req.url === '/index.json') res.writeHead(200, { 'content-length': index.length }).end(index);
      else drip(res, 50, 4000);
    });
    const r = await install(`http://${slow}/index.json#registry_echo@1.0.0`, ['--timeout', '1500']);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toContain('error TIMEOUT');
    expect(r.err).toMatch(/registry_echo@1\.0\.0: the install did not finish within its deadline of 1500 ms/);
    expect(r.err).toContain(`http://${slow}/packages/`);
  });

  it('--timeout that is not a positive whole number of milliseconds is a usage error (exit 2)', async () => {
    for (const bad of ['0', '1.5', 'soon', '1e3']) {
      const r = await install(`${plain.url}/index.json#registry_echo@1.0.0`, ['--timeout', bad]);
      expect(r.code, `${bad}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`--timeout: must be a positive integer (milliseconds), got "${bad}"`);
    }
    expect(plain.hits).toEqual([]); // refused before any request
  });

  it('a registry that answers in time installs under --timeout as before (the old form without it still works)', async () => {
    const withFlag = await install(`${plain.url}/index.json#registry_echo@1.0.0`, ['--timeout', '30000']);
    expect(withFlag.code, withFlag.err).toBe(0);
    expect(withFlag.out).toContain('installed registry_echo@1.0.0');
    const again = await install(`${plain.url}/index.json#registry_echo@1.0.0`);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('unchanged registry_echo@1.0.0');
  });
});
