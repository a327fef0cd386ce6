// Decides whether one URL (the first one or a redirect hop) may be contacted, and to which
// addresses: the DNS answers the rules allow (answer-choice.ts), in the resolver's order. They are
// the only ones the connection may use: the name is never resolved a second time, so a DNS answer
// that changes after the check cannot redirect us.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { allowedAnswers } from './answer-choice.js';
import {
  DEFAULT_PORTS,
  canonicalHost,
  hostPort,
  patternMatches,
  type HostPattern,
  type Scheme,
} from '../../host-grammar/index.js';
import type { HostLookup, ResolvedAddress } from './types.js';

export interface CheckedTarget {
  url: URL;
  scheme: Scheme;
  /** Canonical host name or IP literal (IPv6 without brackets). */
  host: string;
  port: number;
  /** The allowed answers, canonical, in the resolver's order; never empty. */
  addresses: ResolvedAddress[];
}

export const systemLookup: HostLookup = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Parses and checks scheme and credentials; the result is either a URL or the rule broken. */
export function parseTargetUrl(text: string, base?: URL): URL | string {
  let url: URL;
  try {
    url = base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    return `invalid URL ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `scheme ${url.protocol} is not allowed; only http and https`;
  }
  if (url.username !== '' || url.password !== '') return 'URLs with credentials (user:password@) are refused';
  return url;
}

/** The host:port check against allowed_hosts, then DNS and the choice among its answers. */
export async function checkTarget(
  url: URL,
  patterns: readonly HostPattern[],
  lookup: HostLookup,
): Promise<CheckedTarget | string> {
  const scheme: Scheme = url.protocol === 'https:' ? 'https' : 'http';
  const host = canonicalHost(url.hostname);
  if (host === undefined) return `invalid host ${JSON.stringify(url.hostname)}`;
  const port = url.port === '' ? DEFAULT_PORTS[scheme] : Number(url.port);
  const where = hostPort(host, port);
  if (!patterns.some((p) => patternMatches(p, host, port, scheme))) {
    return `host ${where} is not in allowed_hosts`;
  }
  const answers = await addressesOf(host, lookup);
  if (typeof answers === 'string') return answers;
  const addresses = allowedAnswers(host, port, scheme, patterns, answers);
  if (typeof addresses === 'string') return addresses;
  return { url, scheme, host, port, addresses };
}

/** An IP literal as itself; a name through DNS (a failure, or no answer, is the refusal's text). */
async function addressesOf(host: string, lookup: HostLookup): Promise<ResolvedAddress[] | string> {
  if (isIP(host) !== 0) return [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(host);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'lookup failed';
    return `cannot resolve ${host}: ${code}`;
  }
  if (addresses.length === 0) return `cannot resolve ${host}: no addresses`;
  return addresses;
}
