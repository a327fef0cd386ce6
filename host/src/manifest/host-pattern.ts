// The syntax of one `capabilities.allowed_hosts` entry: `host`, `host:port`, `host:*`,
// `*.domain[:port]`, `1.2.3.4[:port]`, `::1` or `[v6]:port` (the sandbox's matching rules: a bare
// host means the scheme's default port, 443 for https and 80 for http). Matching is the sandbox's
// job; here a typo must fail at load rather than silently allow nothing (or something else).

export interface HostPattern {
  /** Lower-cased host without brackets, e.g. `docs.example.com`, `example.com` for `*.example.com`, `::1`. */
  host: string;
  /** True for `*.domain`: any subdomain of `host` (not `host` itself). */
  wildcard: boolean;
  /** Absent = the default port of the scheme; 'any' for `host:*`. */
  port?: number | 'any';
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/;

/** Returns the parsed pattern, or a rule string saying what is wrong. */
export function parseHostPattern(raw: string): HostPattern | string {
  const text = raw.trim().toLowerCase();
  if (text === '') return 'must not be empty';
  if (text.includes('/') || text.includes('@')) return 'must be a host or host:port, not a URL';
  let hostPart = text;
  let portPart: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return 'has an unclosed [ in an IPv6 address';
    hostPart = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return 'must be [ipv6] or [ipv6]:port';
      portPart = rest.slice(1);
    }
    if (!IPV6.test(hostPart) || !hostPart.includes(':')) return 'is not a valid IPv6 address';
  } else {
    const colon = text.lastIndexOf(':');
    if (text.indexOf(':') !== colon) {
      // Several colons: a bare IPv6 literal, which cannot carry a port without brackets.
      if (!IPV6.test(text)) return 'is not a valid IPv6 address (write [v6]:port to give a port)';
      return { host: text, wildcard: false };
    }
    if (colon >= 0) {
      hostPart = text.slice(0, colon);
      portPart = text.slice(colon + 1);
    }
  }
  let port: number | 'any' | undefined;
  if (portPart === '*') port = 'any';
  else if (portPart !== undefined) {
    if (!/^\d{1,5}$/.test(portPart)) return 'has a port that is not a number or *';
    port = Number(portPart);
    if (port < 1 || port > 65535) return 'must have a port between 1 and 65535';
  }
  if (text.startsWith('[')) return port === undefined ? { host: hostPart, wildcard: false } : { host: hostPart, wildcard: false, port };

  let wildcard = false;
  if (hostPart.startsWith('*.')) {
    wildcard = true;
    hostPart = hostPart.slice(2);
  }
  if (hostPart.includes('*')) return 'may use * only as the whole first label, e.g. *.example.com';
  if (hostPart.length > 253) return 'has a host name longer than 253 characters';
  if (IPV4.test(hostPart)) {
    if (wildcard) return 'cannot put *. before an IP address';
  } else {
    const labels = hostPart.split('.');
    if (labels.some((l) => !LABEL.test(l))) return 'is not a valid host name (letters, digits, - and . only)';
    if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return 'is not a valid host name or IPv4 address';
    if (wildcard && labels.length < 2) return 'must name a domain after *., e.g. *.example.com';
  }
  return port === undefined ? { host: hostPart, wildcard } : { host: hostPart, wildcard, port };
}
