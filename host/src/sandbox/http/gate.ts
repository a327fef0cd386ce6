// The HTTP gate: the only way a sandboxed module reaches the network. Each hop (the first URL and
// every redirect) is checked against allowed_hosts and the address rules before a single byte is
// sent to it, and the connection is pinned to the DNS answers that passed (answer-choice.ts).
import { rootCertificates } from 'node:tls';
import { z } from 'zod';
import { describeNetworkError, shortReason } from './describe-error.js';
import { exchange, type ExchangeSettings } from './exchange.js';
import { PinnedPools, type PoolSettings } from './pinned-pools.js';
import { hostPort, parseHostPattern, type HostPattern } from '../../host-grammar/index.js';
import { raceSignal } from '../../signals/index.js';
import { LIMITS as TOOL_LIMITS } from '../limits.js';
import { ResponseTooLarge } from './read-capped.js';
import { redirectedRequest } from './redirect.js';
import { LIMITS, cleanRequest } from './request-shape.js';
import { checkTarget, parseTargetUrl, systemLookup } from './target.js';
import type { ClosableHttpGate, HostLookup, HttpOutcome, HttpPolicy, HttpRequestSpec } from './types.js';
import { warmNetworkPath } from './warm.js';
import { tracer, type Tracer } from '../../telemetry/index.js';

interface Settings extends ExchangeSettings, PoolSettings {
  patterns: HostPattern[];
  lookup: HostLookup;
  maxRequestBytes: number;
  maxRedirects: number;
}

// Built on the first gate, not when the sandbox's code loads: a pure tool never makes one
// (docs/decisions.md, "First call of a fresh server, warm home").
const buildPolicySchema = () =>
  z.object({
    allowedHosts: z.array(z.string()).max(1000),
    maxResponseBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    // a per-request bound under the call's signal, never longer than a tool's timeout may be
    timeoutMs: z.number().int().min(1).max(TOOL_LIMITS.timeoutMs.max),
    lookup: z.custom<HostLookup>((v) => typeof v === 'function').optional(),
    maxRequestBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    maxRedirects: z.number().int().min(0).max(20).optional(),
    extraCaPem: z
      .string()
      .max(1024 * 1024)
      .optional(),
  });
let policySchema: ReturnType<typeof buildPolicySchema> | undefined;

/** Checks the policy once, up front; a bad policy is a configuration error and throws here. */
function settingsOf(policy: HttpPolicy): Settings {
  const parsed = (policySchema ??= buildPolicySchema()).safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid HTTP policy: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'malformed'}`);
  }
  const p = parsed.data;
  const patterns = p.allowedHosts.map((entry, i) => {
    const pattern = parseHostPattern(entry);
    if (typeof pattern === 'string') throw new Error(`allowed_hosts[${i}] ${JSON.stringify(entry)}: ${pattern}`);
    return pattern;
  });
  return {
    patterns,
    maxResponseBytes: p.maxResponseBytes,
    timeoutMs: p.timeoutMs,
    lookup: p.lookup ?? systemLookup,
    maxRequestBytes: p.maxRequestBytes ?? LIMITS.defaultMaxRequestBytes,
    maxRedirects: p.maxRedirects ?? LIMITS.defaultMaxRedirects,
    // tls `ca` replaces the default roots, so the extra ones are appended to them.
    ca: p.extraCaPem === undefined ? undefined : [...rootCertificates, p.extraCaPem],
  };
}

export function createHttpGate(policy: HttpPolicy): ClosableHttpGate {
  const settings = settingsOf(policy);
  const pools = new PinnedPools(settings);
  // after the caller's turn: a tool that may reach the network gets its first request warm. With
  // no allowed host no request can leave, so nothing is warmed: loading undici held the thread
  // 100-180 ms in the middle of a JavaScript tool's first call (its world always imports HTTP).
  if (settings.patterns.length > 0) setImmediate(() => void warmNetworkPath());
  return {
    request(req: HttpRequestSpec, signal: AbortSignal): Promise<HttpOutcome> {
      const callSignal = signal instanceof AbortSignal ? signal : new AbortController().signal;
      const run = () =>
        runRequest(settings, pools, req, callSignal).catch(
          (error: unknown): HttpOutcome => ({ ok: false, error: `request failed: ${shortReason(error)}` }),
        );
      const t = tracer();
      return t === undefined ? run() : tracedRequest(t, req, run);
    },
    close: () => pools.destroy(),
  };
}

const fail = (error: string): HttpOutcome => ({ ok: false, error });

async function runRequest(
  s: Settings,
  pools: PinnedPools,
  req: HttpRequestSpec,
  signal: AbortSignal,
): Promise<HttpOutcome> {
  const clean = cleanRequest(req, s.maxRequestBytes);
  if (typeof clean === 'string') return fail(clean);
  if (signal.aborted) return fail('request aborted');
  const deadline = AbortSignal.timeout(s.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  // The caller's abort wins over our deadline when both have fired.
  const whyStopped = (): string => (signal.aborted ? 'request aborted' : `request timed out after ${s.timeoutMs} ms`);

  const first = parseTargetUrl(clean.url);
  if (typeof first === 'string') return fail(first);
  let url = first;
  let { method, body } = clean;
  let headers = { ...clean.headers };

  for (let hop = 0; ; hop++) {
    // a DNS lookup cannot be cancelled: the hop stops waiting for it once the call is aborted
    let target: Awaited<ReturnType<typeof checkTarget>>;
    try {
      target = await raceSignal(checkTarget(url, s.patterns, s.lookup), combined);
    } catch (err) {
      if (combined.aborted) return fail(whyStopped());
      throw err;
    }
    if (typeof target === 'string') return fail(hop === 0 ? target : `redirect to ${url.href} refused: ${target}`);

    const result = await exchange(s, pools, target, method, headers, body, combined).catch(
      (error: unknown): HttpOutcome => {
        if (combined.aborted) return fail(whyStopped());
        if (error instanceof ResponseTooLarge) return fail(error.message);
        return fail(describeNetworkError(error, hostPort(target.host, target.port)));
      },
    );
    if (!('redirect' in result)) return result;

    if (hop >= s.maxRedirects) return fail(`too many redirects (more than ${s.maxRedirects})`);
    const next = parseTargetUrl(result.redirect, url);
    if (typeof next === 'string') return fail(`redirect to ${result.redirect.slice(0, 200)} refused: ${next}`);
    ({ method, body, headers } = redirectedRequest(url, next, result.status, method, body, headers));
    url = next;
  }
}

/**
 * A CLIENT span for one request a tool makes: the method, the host and port of the first URL and
 * the status. Never the URL's path or query, the headers or the body (they may carry secrets).
 */
function tracedRequest(t: Tracer, req: HttpRequestSpec, run: () => Promise<HttpOutcome>): Promise<HttpOutcome> {
  const method = /^[A-Z]{1,16}$/.test(req.method) ? req.method : '_OTHER';
  let host: string | undefined;
  let port: number | undefined;
  try {
    const u = new URL(req.url);
    host = u.hostname;
    port = u.port !== '' ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  } catch {
    host = undefined;
  }
  return t.child(
    method,
    { 'http.request.method': method, 'server.address': host, 'server.port': port },
    async (span) => {
      const out = await run();
      if (out.ok) span.set({ 'http.response.status_code': out.status });
      else span.fail('http_request_refused');
      return out;
    },
    'client',
  );
}
