// All registry HTTP goes through undici. Plain http is allowed only to 127.0.0.0/8 or with an explicit
// --insecure; every redirect hop is checked again, and a hop from https down to http is refused
// without --insecure even to loopback (docs/decisions.md, "Registry transport: no downgrade, one
// deadline"). Downloads are hashed as they stream, capped in size, bounded by the install's one
// deadline, and refused on a digest mismatch before any byte is used.
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { RegistryError } from './errors.js';
import { messageOf } from '../errors/index.js';

export type Headers = Record<string, string | string[] | undefined>;

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 60_000;

export function isLoopbackHost(hostname: string): boolean {
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  if (m === null) return false;
  return m.slice(1).every((o) => Number(o) <= 255);
}

export function checkTransport(url: URL, insecure: boolean): void {
  if (url.protocol === 'https:') return;
  if (url.protocol !== 'http:')
    throw new RegistryError('BAD_REFERENCE', `${url.href}: only https (or http to 127.0.0.0/8) is supported`);
  if (isLoopbackHost(url.hostname) || insecure) return;
  throw new RegistryError(
    'INSECURE_TRANSPORT',
    `${url.href}: plain http is allowed only to 127.0.0.0/8; use https or pass --insecure`,
  );
}

/**
 * A redirect may not take a request from https to plain http: what the user asked for over TLS would
 * then arrive unauthenticated. Loopback is no exception here (the first hop chose https); --insecure is.
 */
export function checkRedirect(from: URL, to: URL, insecure: boolean, how = 'redirects to'): void {
  if (from.protocol !== 'https:' || to.protocol !== 'http:' || insecure) return;
  throw new RegistryError(
    'INSECURE_TRANSPORT',
    `${from.href} ${how} ${to.href}: going from https down to plain http is refused (a downgrade); pass --insecure to allow it`,
  );
}

/** The install's overall time: one signal for every request of it, and its length for the message. */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly ms: number;
}

/**
 * An install's downloads end within this, however slowly a registry sends: ten minutes is ample for
 * the largest package (PACKAGE_LIMITS) on a slow link, and a registry that trickles bytes cannot hold
 * the command for ever. A person's answer to the prompt is not on this clock (docs/decisions.md,
 * "Registry transport: no downgrade, one deadline").
 */
export const INSTALL_TIMEOUT_MS = 600_000;

/** A deadline that starts now. */
export function deadlineIn(ms: number): Deadline {
  return { signal: AbortSignal.timeout(ms), ms };
}

/** The error for a request cut off by the install's deadline (undefined when it was something else). */
function deadlineError(deadline: Deadline | undefined, what: string, url: URL): RegistryError | undefined {
  if (deadline?.signal.aborted !== true) return undefined;
  return new RegistryError(
    'TIMEOUT',
    `${what}: the install did not finish within its deadline of ${deadline.ms} ms (--timeout MS); ${url.href} was still being fetched`,
  );
}

/** The per-request timeout, joined with the install's deadline when there is one. */
function requestSignal(deadline: Deadline | undefined): AbortSignal {
  const own = AbortSignal.timeout(TIMEOUT_MS);
  return deadline === undefined ? own : AbortSignal.any([own, deadline.signal]);
}

export function header(headers: Headers, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function statusError(status: number, url: string, what: string): RegistryError {
  if (status === 404) return new RegistryError('NOT_FOUND', `${what}: not found (HTTP 404 from ${url})`);
  if (status === 401 || status === 403) {
    return new RegistryError(
      'AUTH_REQUIRED',
      `${what}: the server requires authentication (HTTP ${status} from ${url}); toolgate supports only anonymous access`,
    );
  }
  return new RegistryError('NETWORK', `${what}: HTTP ${status} from ${url}`);
}

export interface Progress {
  start(what: string, total: number | undefined): void;
  advance(bytes: number): void;
  done(): void;
}

export interface FetchOptions {
  what: string;
  insecure: boolean;
  maxBytes: number;
  headers?: Record<string, string>;
  /** `sha256:<hex>`: the body must hash to this, or DIGEST_MISMATCH. */
  expectDigest?: string;
  expectSize?: number;
  progress?: Progress;
  deadline?: Deadline;
}

export interface Fetched {
  bytes: Buffer;
  headers: Headers;
  url: string;
  digest: string;
}

type Response = Awaited<ReturnType<typeof request>>;

export async function fetchBytes(urlText: string, opts: FetchOptions): Promise<Fetched> {
  let url = new URL(urlText);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    checkTransport(url, opts.insecure);
    const res = await get(url, opts);
    if (res.statusCode >= 300 && res.statusCode < 400) {
      await res.body.dump();
      const location = header(res.headers, 'location');
      if (!location) throw new RegistryError('NETWORK', `${opts.what}: redirect without Location from ${url.href}`);
      const next = new URL(location, url);
      checkRedirect(url, next, opts.insecure);
      url = next;
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw statusError(res.statusCode, url.href, opts.what);
    }
    const lengthText = header(res.headers, 'content-length');
    const length = lengthText === undefined ? undefined : Number(lengthText);
    await refuseAnnouncedLength(res, length, opts);
    const { bytes, digest } = await readHashed(res, url, length, opts);
    if (opts.expectDigest !== undefined && digest !== opts.expectDigest) {
      throw new RegistryError(
        'DIGEST_MISMATCH',
        `${opts.what}: downloaded bytes have digest ${digest}, expected ${opts.expectDigest} (${url.href})`,
      );
    }
    return { bytes, headers: res.headers, url: url.href, digest };
  }
  throw new RegistryError('NETWORK', `${opts.what}: more than ${MAX_REDIRECTS} redirects`);
}

/** One GET, without following redirects; a failure to connect is NETWORK. */
async function get(url: URL, opts: FetchOptions): Promise<Response> {
  try {
    return await request(url, {
      method: 'GET',
      headers: opts.headers ?? {},
      signal: requestSignal(opts.deadline),
    });
  } catch (err) {
    throw (
      deadlineError(opts.deadline, opts.what, url) ??
      new RegistryError('NETWORK', `${opts.what}: cannot reach ${url.href} (${messageOf(err)})`)
    );
  }
}

/** A Content-Length over the cap, or other than the expected size, is refused before the body is read. */
async function refuseAnnouncedLength(res: Response, length: number | undefined, opts: FetchOptions): Promise<void> {
  if (length !== undefined && length > opts.maxBytes) {
    await res.body.dump();
    throw new RegistryError('TOO_LARGE', `${opts.what}: ${length} bytes is over the limit of ${opts.maxBytes}`);
  }
  if (opts.expectSize !== undefined && length !== undefined && length !== opts.expectSize) {
    await res.body.dump();
    throw new RegistryError(
      'DIGEST_MISMATCH',
      `${opts.what}: size ${length} does not match the expected ${opts.expectSize}`,
    );
  }
}

/** The body, hashed as it streams and cut off at the cap (or past the expected size). */
async function readHashed(
  res: Response,
  url: URL,
  length: number | undefined,
  opts: FetchOptions,
): Promise<{ bytes: Buffer; digest: string }> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let received = 0;
  opts.progress?.start(opts.what, length ?? opts.expectSize);
  try {
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      received += buf.length;
      if (received > opts.maxBytes || (opts.expectSize !== undefined && received > opts.expectSize)) {
        res.body.destroy();
        throw new RegistryError(
          received > opts.maxBytes ? 'TOO_LARGE' : 'DIGEST_MISMATCH',
          `${opts.what}: body is longer than ${Math.min(opts.maxBytes, opts.expectSize ?? Infinity)} bytes`,
        );
      }
      hash.update(buf);
      chunks.push(buf);
      opts.progress?.advance(buf.length);
    }
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    throw (
      deadlineError(opts.deadline, opts.what, url) ??
      new RegistryError('NETWORK', `${opts.what}: download from ${url.href} failed (${messageOf(err)})`)
    );
  } finally {
    opts.progress?.done();
  }
  return { bytes: Buffer.concat(chunks), digest: `sha256:${hash.digest('hex')}` };
}

export interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

/** One request with a small body (publishing); the caller decides which statuses are success. */
export async function send(
  method: 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'GET',
  urlText: string,
  opts: { what: string; insecure: boolean; headers?: Record<string, string>; body?: Uint8Array | string },
): Promise<Sent> {
  const url = new URL(urlText);
  checkTransport(url, opts.insecure);
  try {
    const res = await request(url, {
      method,
      headers: opts.headers ?? {},
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = method === 'HEAD' ? (await res.body.dump(), '') : await res.body.text();
    if (res.statusCode === 401 || res.statusCode === 403) throw statusError(res.statusCode, url.href, opts.what);
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    throw new RegistryError('NETWORK', `${opts.what}: cannot reach ${url.href} (${messageOf(err)})`);
  }
}
