// The checks every HTTP request passes before any route runs: Host (DNS rebinding), Origin
// (browsers), bearer token, per-client concurrency and the body cap.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ToolgateError } from '../errors/index.js';
import { clientKey, isLoopback } from './address.js';

export interface GuardConfig {
  /** Host names (no port) a request may name in its Host header; empty = any (see allowedHostsFor). */
  allowedHosts: string[];
  /** The port the server is bound to; a Host header naming another port is refused. */
  port: number;
  /** Exact origins (scheme://host[:port]) a browser page may call from. */
  allowedOrigins: string[];
  token: string | undefined;
  /**
   * The approver credential the approval endpoints need: the token when one is set, else the
   * per-start approval secret. No tool can hold it (tools never reach this server's socket, and
   * the secret's file is refused as a mount).
   */
  approver: string;
  /** Where serve wrote the approval secret (0600), so a 401 can say where to read it. */
  approverFile?: string;
  /** The server's own origins (http://HOST:PORT of the bound address); set once it listens. */
  ownOrigins?: string[];
}

export type GuardFailure = { status: 401 | 403; message: string };

/**
 * Loopback binds accept only loopback names, so a page on evil.example whose name rebinds to
 * 127.0.0.1 is refused. A non-loopback bind must carry a token (checked at start); there the Host
 * check applies only when --allowed-host names the hosts.
 */
export function allowedHostsFor(bindHost: string, configured: string[]): string[] {
  if (configured.length > 0) return configured.map((h) => h.toLowerCase());
  if (isLoopback(bindHost)) return ['localhost', '127.0.0.1', '::1', bindHost.toLowerCase()];
  return [];
}

function hostPart(header: string): { host: string; port: number | undefined } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (m === null) return undefined;
  return { host: (m[1] ?? m[2] ?? '').toLowerCase(), port: m[3] === undefined ? undefined : Number(m[3]) };
}

export function checkHost(req: IncomingMessage, cfg: GuardConfig): GuardFailure | undefined {
  if (cfg.allowedHosts.length === 0) return undefined;
  const header = req.headers.host;
  const parsed = header === undefined ? undefined : hostPart(header);
  if (parsed === undefined) return { status: 403, message: 'missing or malformed Host header' };
  if (!cfg.allowedHosts.includes(parsed.host) || (parsed.port !== undefined && parsed.port !== cfg.port)) {
    return {
      status: 403,
      message: `Host "${header ?? ''}" is not allowed (DNS rebinding protection); use --allowed-host to add it`,
    };
  }
  return undefined;
}

/**
 * Non-browser clients send no Origin and pass; a browser's Origin must be the server's own
 * (no foreign script runs there: its only page is /ui, whose CSP admits only its own script) or
 * on the allowlist.
 */
export function checkOrigin(req: IncomingMessage, cfg: GuardConfig): GuardFailure | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const normal = origin.toLowerCase().replace(/\/$/, '');
  if (cfg.ownOrigins?.includes(normal) === true || cfg.allowedOrigins.includes(normal)) return undefined;
  return { status: 403, message: `Origin "${origin}" is not allowed; use --allow-origin to add it` };
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant time in the token's content and length: both sides are hashed to 32 bytes first. */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The request carries an Authorization header: when it is wrong, that is a guess (a missing one is not). */
export function presentsCredential(req: IncomingMessage): boolean {
  return (req.headers.authorization ?? '').trim() !== '';
}

export function checkToken(req: IncomingMessage, cfg: GuardConfig): GuardFailure | undefined {
  if (cfg.token === undefined) return undefined;
  const auth = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  if (m === null || !tokenMatches(m[1] ?? '', cfg.token))
    return { status: 401, message: 'a valid bearer token is required (Authorization: Bearer <token>)' };
  return undefined;
}

/** The client a request counts against in the per-client limits (address.ts, clientKey). */
export function clientAddress(req: IncomingMessage): string {
  return clientKey(req.socket.remoteAddress);
}

/** The routes that read or answer approvals. */
export function isApprovalPath(pathname: string): boolean {
  return pathname === '/v1/approvals' || pathname.startsWith('/v1/approvals/');
}

/** Approval routes need the approver credential as a bearer token, even on loopback. */
export function checkApprover(req: IncomingMessage, url: URL, cfg: GuardConfig): GuardFailure | undefined {
  if (!isApprovalPath(url.pathname)) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (m !== null && tokenMatches(m[1] ?? '', cfg.approver)) return undefined;
  const what =
    cfg.token !== undefined
      ? 'the bearer token'
      : cfg.approverFile !== undefined
        ? `the approval secret, in ${cfg.approverFile}`
        : 'the approval secret this server was started with';
  return { status: 401, message: `approvals need the approver credential: send Authorization: Bearer <${what}>` };
}

/** Counts open requests per client key; `enter` fails when the key is at its cap. */
export class ConcurrencyLimit {
  readonly #open = new Map<string, number>();
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  enter(key: string): (() => void) | undefined {
    const n = this.#open.get(key) ?? 0;
    if (n >= this.max) return undefined;
    this.#open.set(key, n + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const now = (this.#open.get(key) ?? 1) - 1;
      if (now <= 0) this.#open.delete(key);
      else this.#open.set(key, now);
    };
  }
}

export class BodyTooLargeError extends ToolgateError<'BODY_TOO_LARGE'> {
  readonly limit: number;
  constructor(limit: number) {
    super('BODY_TOO_LARGE', `request body is larger than ${limit} bytes`);
    this.limit = limit;
  }
}

/** Reads the body, refusing (without buffering the rest) once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume(); // drain and drop the rest so the response can still be sent
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
