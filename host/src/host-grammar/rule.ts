// Host rules: the entries of guard-hosts `deny`/`allow` and of a ceiling's `allowed_hosts`. They use
// the allowed_hosts grammar (pattern.ts) and its normal form, with three differences a list of
// hosts to refuse or permit needs: a rule without a port covers every port; `*` alone is every
// host; a CIDR range (`10.0.0.0/8`, `[fc00::]/7`) covers addresses. `localhost` also covers every
// loopback address (127.0.0.0/8, ::1) and the unspecified one (0.0.0.0, ::), since that is where
// it leads, and `*.localhost`.
import { isIP } from 'node:net';
import { carriedIpv4, inRange, ipValue, parseCidr, type IpRange } from './ip.js';
import { formatHostPattern, parseHostPattern, type HostPattern } from './pattern.js';

export interface HostRule {
  /** The rule in normal form, for messages. */
  normal: string;
  every: boolean;
  /** Exact names (canonical). */
  names: string[];
  /** Glob suffixes: `*.example.com` -> `example.com`. */
  suffixes: string[];
  ranges: IpRange[];
  port: number | 'any';
}

let localRanges: IpRange[] | undefined;
/**
 * Loopback and unspecified addresses, made on the first `localhost` rule: made at load, the first
 * IPv6 check of the process ran in every start (a few ms in a profile of `serve`'s start-up).
 */
const localRangesOf = (): IpRange[] =>
  (localRanges ??= ['127.0.0.0/8', '0.0.0.0/32', '::1/128', '::/128'].map((c) => parseCidr(c) as IpRange));

/** Parses one rule; a string is the rule it breaks. */
export function parseHostRule(source: string): HostRule | string {
  if (source !== source.trim() || source === '') return 'must be a non-empty host without spaces';
  if (source.includes('/') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    const range = parseCidr(source);
    return typeof range === 'string'
      ? range
      : { normal: source.toLowerCase(), every: false, names: [], suffixes: [], ranges: [range], port: 'any' };
  }
  const every = /^\*(?::(\*|[0-9]{1,5}))?$/.exec(source);
  const parsed = parseHostPattern(every === null ? source : `every.invalid${source.slice(1)}`);
  if (typeof parsed === 'string') {
    return /^[0-9.]*\*/.test(source) ? `${parsed} (write an address range as CIDR, e.g. 10.0.0.0/8)` : parsed;
  }
  const port = parsed.port === 'default' ? 'any' : parsed.port;
  const portText = port === 'any' ? '' : `:${port}`;
  if (every !== null) return { normal: `*${portText}`, every: true, names: [], suffixes: [], ranges: [], port };
  const normal = formatHostPattern({ ...parsed, port: port === 'any' ? 'default' : port });
  const rule: HostRule = { normal, every: false, names: [], suffixes: [], ranges: [], port };
  if (parsed.kind === 'glob') rule.suffixes.push(parsed.host);
  else if (parsed.kind === 'ip') rule.ranges.push({ base: ipValue(parsed.host) ?? 0n, bits: 128 });
  else rule.names.push(parsed.host);
  if (parsed.kind === 'name' && parsed.host === 'localhost') {
    rule.suffixes.push('localhost');
    rule.ranges.push(...localRangesOf());
  }
  return rule;
}

/** What a rule is held against: an allowed_hosts pattern, or a host and port a call names. */
export type HostTarget = Pick<HostPattern, 'kind' | 'host' | 'port'>;

function portsOverlap(rule: HostRule, port: HostTarget['port']): boolean {
  if (rule.port === 'any' || port === 'any') return true;
  return port === 'default' ? rule.port === 80 || rule.port === 443 : rule.port === port;
}

function portCovered(rule: HostRule, port: HostTarget['port']): boolean {
  return rule.port === 'any' || rule.port === port;
}

const under = (name: string, suffix: string): boolean => name.length > suffix.length + 1 && name.endsWith(`.${suffix}`);

function addressMatches(rule: HostRule, host: string, reach: boolean): boolean {
  const value = ipValue(host);
  if (value === undefined) return false;
  const carried = reach ? carriedIpv4(value) : undefined;
  return rule.ranges.some((r) => inRange(value, r) || (carried !== undefined && inRange(carried, r)));
}

/** Whether some host:port the target admits is one the rule names (for deny lists). */
export function ruleOverlaps(rule: HostRule, target: HostTarget): boolean {
  if (!portsOverlap(rule, target.port)) return false;
  if (rule.every) return true;
  if (target.kind === 'ip' || isIP(target.host) !== 0) return addressMatches(rule, target.host, true);
  if (target.kind === 'name')
    return rule.names.includes(target.host) || rule.suffixes.some((s) => under(target.host, s));
  // A glob target `*.T` admits every name under T.
  return (
    rule.names.some((n) => under(n, target.host)) ||
    rule.suffixes.some((s) => s === target.host || under(s, target.host) || under(target.host, s))
  );
}

/** Whether every host:port the target admits is one the rule names (for allow lists and ceilings). */
export function ruleCovers(rule: HostRule, target: HostTarget): boolean {
  if (!portCovered(rule, target.port)) return false;
  if (rule.every) return true;
  if (target.kind === 'ip' || isIP(target.host) !== 0) return addressMatches(rule, target.host, false);
  if (target.kind === 'name')
    return rule.names.includes(target.host) || rule.suffixes.some((s) => under(target.host, s));
  return rule.suffixes.some((s) => s === target.host || under(target.host, s));
}
