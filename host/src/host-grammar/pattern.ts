// allowed_hosts entries and how they match a request's host and port: the sandbox's host grammar,
// shared by manifests (stored in normal form), guard-hosts, ceilings and `inspect`.
//
// Rules (architecture.md §4):
// - `docs.example.com`       that name, on the scheme's default port only (443 https, 80 http);
// - `docs.example.com:8443`  that name on that port only; `host:*` on any port;
// - `*.example.com`          any name with one or more labels before `.example.com`, never the
//                            apex itself; `*` is allowed only as the whole leftmost label;
// - `127.0.0.1:8080`, `[::1]:8080`, `::1`   IP literals (IPv6 in brackets when a port follows).
// Names compare case-insensitively, IDN names in their punycode form, a trailing dot ignored.
// A glob never matches an IP literal, so `*.0.0.1` cannot smuggle in an address.
import { isIP } from 'node:net';

export type Scheme = 'http' | 'https';

export interface HostPattern {
  /** The entry as written, for messages. */
  source: string;
  kind: 'name' | 'glob' | 'ip';
  /** Canonical host (lower case, IPv6 without brackets); for a glob, the suffix after `*.`. */
  host: string;
  port: number | 'default' | 'any';
}

export const DEFAULT_PORTS: Readonly<Record<Scheme, number>> = { http: 80, https: 443 };

/** Canonical form of a host as written in a URL or pattern; undefined when it is not a host. */
export function canonicalHost(raw: string): string | undefined {
  const bare = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (bare === '' || /[\s/?#@\\]/.test(bare)) return undefined;
  if (isIP(bare) === 6) {
    try {
      return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  if (bare.includes(':') || bare.includes('[') || bare.includes(']')) return undefined;
  let host: string;
  try {
    host = new URL(`http://${bare}/`).hostname; // lower-cases, punycodes, normalizes IPv4 forms
  } catch {
    return undefined;
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host === '' || host.includes('..') ? undefined : host;
}

/** Parses one allowed_hosts entry; returns the rule it breaks as a string when it is not valid. */
export function parseHostPattern(source: string): HostPattern | string {
  if (source !== source.trim() || source === '') return 'must be a non-empty host without spaces';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return 'must be a host[:port], not a URL';
  let hostPart: string;
  let portPart: string | undefined;
  if (source.startsWith('[')) {
    const close = source.indexOf(']');
    if (close < 0) return 'IPv6 literal is missing its closing ]';
    hostPart = source.slice(0, close + 1);
    const rest = source.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return 'only :port may follow an IPv6 literal';
    portPart = rest === '' ? undefined : rest.slice(1);
  } else if ((source.match(/:/g) ?? []).length >= 2) {
    hostPart = source; // bare IPv6 literal: no port can be given without brackets
  } else {
    const colon = source.lastIndexOf(':');
    hostPart = colon < 0 ? source : source.slice(0, colon);
    portPart = colon < 0 ? undefined : source.slice(colon + 1);
  }
  let port: HostPattern['port'] = 'default';
  if (portPart !== undefined) {
    if (portPart === '*') port = 'any';
    else if (/^[0-9]{1,5}$/.test(portPart) && Number(portPart) >= 1 && Number(portPart) <= 65535)
      port = Number(portPart);
    else return `port "${portPart}" must be 1-65535 or *`;
  }
  if (hostPart.startsWith('*.')) {
    const suffix = canonicalHost(hostPart.slice(2));
    if (suffix === undefined || suffix.includes('*')) return '`*.` must be followed by a host name';
    if (isIP(suffix) !== 0) return 'a glob cannot cover IP addresses';
    return { source, kind: 'glob', host: suffix, port };
  }
  if (hostPart.includes('*')) return '`*` is allowed only as the whole leftmost label, as in *.example.com';
  const host = canonicalHost(hostPart);
  if (host === undefined) return `"${hostPart}" is not a valid host name or IP address`;
  return { source, kind: isIP(host) === 0 ? 'name' : 'ip', host, port };
}

/** The one written form of a parsed pattern: lower case, punycode, dotted-quad IPv4, bracketed IPv6. */
export function formatHostPattern(pattern: Pick<HostPattern, 'kind' | 'host' | 'port'>): string {
  const host =
    pattern.kind === 'glob' ? `*.${pattern.host}` : isIP(pattern.host) === 6 ? `[${pattern.host}]` : pattern.host;
  return pattern.port === 'default' ? host : `${host}:${pattern.port === 'any' ? '*' : pattern.port}`;
}

/** The normal form of an allowed_hosts entry (`127.1:8080` -> `127.0.0.1:8080`), or the rule it breaks. */
export function normalHostPattern(entry: string): { normal: string } | { problem: string } {
  const parsed = parseHostPattern(entry);
  return typeof parsed === 'string' ? { problem: parsed } : { normal: formatHostPattern(parsed) };
}

/** undefined when `entry` is a valid allowed_hosts entry, else the rule it breaks (for manifests). */
export function checkHostPattern(entry: string): string | undefined {
  const parsed = parseHostPattern(entry);
  return typeof parsed === 'string' ? parsed : undefined;
}

function portMatches(pattern: HostPattern, port: number, scheme: Scheme): boolean {
  if (pattern.port === 'any') return true;
  if (pattern.port === 'default') return port === DEFAULT_PORTS[scheme];
  return port === pattern.port;
}

/** Whether a parsed pattern admits host:port under scheme; `host` must already be canonical. */
export function patternMatches(pattern: HostPattern, host: string, port: number, scheme: Scheme): boolean {
  if (!portMatches(pattern, port, scheme)) return false;
  const hostIsIp = isIP(host) !== 0;
  switch (pattern.kind) {
    case 'glob':
      return !hostIsIp && host.length > pattern.host.length + 1 && host.endsWith(`.${pattern.host}`);
    case 'name':
    case 'ip':
      return host === pattern.host;
  }
}

/**
 * Whether the allowed_hosts entry `pattern` admits `host` on `port` for `scheme`. An invalid
 * pattern or host matches nothing. `host` may be a URL hostname (`[::1]` keeps its brackets).
 */
export function matchHost(pattern: string, host: string, port: number, scheme: 'http' | 'https'): boolean {
  const parsed = parseHostPattern(pattern);
  const canonical = canonicalHost(host);
  if (typeof parsed === 'string' || canonical === undefined) return false;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return false;
  if (scheme !== 'http' && scheme !== 'https') return false;
  return patternMatches(parsed, canonical, port, scheme);
}

/** host:port as people write it (IPv6 in brackets), for messages. */
export function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
