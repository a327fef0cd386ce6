// https through the gate: the socket goes to the pinned, checked address while TLS still verifies
// the certificate against the URL's name (SNI and identity check use the name, not the address).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpGate, type HostLookup } from '../../host/src/sandbox/http/index.js';
import { selfSignedCert } from '../tls-cert.js';

const NAME = 'secure.example.com';
let dir: string;
let cert: string;
let server: Server;
let port: number;
const sniSeen: Array<string | false> = [];

const toLoopback: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];
const never = (): AbortSignal => new AbortController().signal;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-http-tls-'));
  const { keyFile, certFile } = selfSignedCert(dir, `/CN=${NAME}`, `DNS:${NAME}`);
  cert = readFileSync(certFile, 'utf8');
  server = createServer({ key: readFileSync(keyFile), cert }, (req, res) => {
    sniSeen.push((req.socket as TLSSocket & { servername?: string | false }).servername ?? false);
    res.end(`tls ok for ${req.headers.host ?? ''}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe('https keeps the name for TLS while connecting to the checked address', () => {
  it('a certificate for the name is accepted over a pinned loopback connection, with SNI = the name', async () => {
    const gate = createHttpGate({
      allowedHosts: [`${NAME}:${port}`, `127.0.0.1:${port}`],
      maxResponseBytes: 4096,
      timeoutMs: 5000,
      lookup: toLoopback,
      extraCaPem: cert,
    });
    const out = await gate.request({ method: 'GET', url: `https://${NAME}:${port}/`, headers: {} }, never());
    expect(out.ok && Buffer.from(out.body).toString()).toBe(`tls ok for ${NAME}:${port}`);
    expect(sniSeen.at(-1)).toBe(NAME);
  });

  it('certificates are verified: an untrusted one is an error outcome', async () => {
    const gate = createHttpGate({
      allowedHosts: [`${NAME}:${port}`, `127.0.0.1:${port}`],
      maxResponseBytes: 4096,
      timeoutMs: 5000,
      lookup: toLoopback,
    });
    const out = await gate.request({ method: 'GET', url: `https://${NAME}:${port}/`, headers: {} }, never());
    expect(out.ok).toBe(false);
    if (!out.ok)
      expect(out.error).toMatch(new RegExp(`^request to ${NAME.replace(/\./g, '\\.')}:${port} failed: .*CERT`));
  });

  it('a certificate for another name is refused even though the address is the same', async () => {
    const other = 'other.example.com';
    const gate = createHttpGate({
      allowedHosts: [`${other}:${port}`, `127.0.0.1:${port}`],
      maxResponseBytes: 4096,
      timeoutMs: 5000,
      lookup: toLoopback,
      extraCaPem: cert,
    });
    const out = await gate.request({ method: 'GET', url: `https://${other}:${port}/`, headers: {} }, never());
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
  });
});
