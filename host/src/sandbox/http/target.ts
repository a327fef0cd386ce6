// Decides whether one URL (the first one or a redirect hop) may be contacted, and to which
// addresses. The addresses returned are the only ones the connection may use: the name is never
// resolved a second time, so a DNS answer that changes after the check cannot redirect us.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isOwnListener } from '../../own-sockets/index.js';
import { classifyAddress, describeClass } from './address-class.js';
import { DEFAULT_PORTS, canonicalHost, hostPort, patternMatches, type HostPattern, type Scheme } from '../../host-grammar/index.js';
import type { HostLookup, ResolvedAddress } from './types.js';

export interface CheckedTarget {
  url: URL;
  scheme: Scheme;
  /** Canonical host name or IP literal (IPv6 without brackets). */
  host: string;
  port: number;
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

/** The host:port check against allowed_hosts, then DNS and the address-class check. */
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
  const addresses = await addressesOf(host, lookup);
  if (typeof addresses === 'string') return addresses;
  for (const { address } of addresses) {
    const refused = refusedAddress(host, port, scheme, patterns, address);
    if (refused !== undefined) return refused;
  }
  return {
    url,
    scheme,
    host,
    port,
    // Every address passed refusedAddress, so each is a canonical IP literal.
    addresses: addresses.map((a) => {
      const address = canonicalHost(a.address) ?? a.address;
      return { address, family: isIP(address) === 6 ? 6 : 4 };
    }),
  };
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

/**
 * Why `host` may not be reached at `address`, or undefined when it may. A special address is
 * reachable only when that very address is listed (for this port): a listed name, or a glob, never
 * vouches for where it happens to resolve.
 */
function refusedAddress(host: string, port: number, scheme: Scheme, patterns: readonly HostPattern[], address: string): string | undefined {
  const canonical = canonicalHost(address);
  // An answer the host grammar cannot read (a zone id, garbage from a resolver) is never a
  // place to connect to: skipping it would hand the raw text to the socket unchecked.
  if (canonical === undefined || isIP(canonical) === 0) return `${host} resolved to ${JSON.stringify(address.slice(0, 64))}, which is not an IP address this sandbox can check`;
  // toolgate's own sockets are never reachable, whatever allowed_hosts says: a tool calling its
  // own server could answer its own approvals or borrow other tools' capabilities.
  if (isOwnListener(canonical, port)) {
    const literal = hostPort(canonical, port);
    return isIP(host) !== 0
      ? `${literal} is this toolgate process's own server; tools may never connect to it`
      : `${host} resolves to ${literal}, this toolgate process's own server; tools may never connect to it`;
  }
  const cls = classifyAddress(canonical);
  if (cls === undefined) return undefined;
  const listed = patterns.some((p) => p.kind === 'ip' && patternMatches(p, canonical, port, scheme));
  if (listed) return undefined;
  const literal = hostPort(canonical, port);
  return isIP(host) !== 0
    ? `${literal} is ${describeClass(cls)}; list it in allowed_hosts to allow it`
    : `${host} resolves to ${canonical}, ${describeClass(cls)}; list ${literal} in allowed_hosts to allow it`;
}
