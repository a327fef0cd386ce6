// IP addresses as numbers: one 128-bit value per address (IPv4 in its IPv4-mapped IPv6 place), so
// a rule's range and an address compare the same however either was spelled.
import { isIPv4, isIPv6 } from 'node:net';

/** Dotted-quad IPv4 to an unsigned 32-bit number; undefined when it is not one. */
export function parseIpv4(text: string): number | undefined {
  if (!isIPv4(text)) return undefined;
  const parts = text.split('.').map(Number);
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
}

/** IPv6 text to its eight 16-bit groups (zone id dropped); undefined when it is not IPv6. */
export function parseIpv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  let head = bare;
  const tail: number[] = [];
  // An embedded dotted quad (::ffff:1.2.3.4) becomes the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (quad?.[1] !== undefined) {
    const n = parseIpv4(quad[1]);
    if (n === undefined) return undefined;
    tail.push(n >>> 16, n & 0xffff);
    head = bare.slice(0, bare.length - quad[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const toGroups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const want = 8 - tail.length;
  let groups: number[];
  const gap = head.indexOf('::');
  if (gap >= 0) {
    const left = toGroups(head.slice(0, gap));
    const right = toGroups(head.slice(gap + 2));
    groups = [...left, ...new Array<number>(want - left.length - right.length).fill(0), ...right];
  } else {
    groups = toGroups(head);
  }
  groups.push(...tail);
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const MAPPED = 0xffffn << 32n;

/** An IP literal (IPv4 dotted quad or IPv6) as a 128-bit value; IPv4 sits at ::ffff:a.b.c.d. */
export function ipValue(text: string): bigint | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return MAPPED | BigInt(v4);
  const groups = parseIpv6(text);
  if (groups === undefined || text.includes('%')) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/**
 * The IPv4 address (as its mapped value) that an IPv6 address carries and would reach: IPv4-
 * compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::/48). The sandbox's
 * address classes judge these forms by their IPv4 address; a deny rule must too.
 */
export function carriedIpv4(value: bigint): bigint | undefined {
  const low32 = value & 0xffffffffn;
  const high96 = value >> 32n;
  if (high96 === 0n && low32 > 1n) return MAPPED | low32; // compatible, not :: or ::1
  if (high96 === 0x0064ff9b0000000000000000n) return MAPPED | low32;
  if (value >> 112n === 0x2002n) return MAPPED | ((value >> 80n) & 0xffffffffn);
  return undefined;
}

export interface IpRange {
  base: bigint;
  /** Prefix length in the 128-bit space (an IPv4 /8 is 104 here). */
  bits: number;
}

export function inRange(value: bigint, range: IpRange): boolean {
  const shift = BigInt(128 - range.bits);
  return value >> shift === range.base >> shift;
}

/** `10.0.0.0/8`, `[fc00::]/7` or `fc00::/7`; a string names the rule it breaks. */
export function parseCidr(text: string): IpRange | string {
  const slash = text.lastIndexOf('/');
  const addr = text.slice(0, slash).replace(/^\[(.*)\]$/, '$1');
  const bitsText = text.slice(slash + 1);
  const value = ipValue(addr);
  if (value === undefined || (!isIPv4(addr) && !isIPv6(addr)))
    return `"${addr}" in a CIDR range must be an IPv4 dotted quad or an IPv6 address`;
  const max = isIPv4(addr) ? 32 : 128;
  if (!/^[0-9]{1,3}$/.test(bitsText) || Number(bitsText) > max) return `prefix length "${bitsText}" must be 0-${max}`;
  const bits = Number(bitsText) + (max === 32 ? 96 : 0);
  const range = { base: value, bits };
  const hostBits = value & ((1n << BigInt(128 - bits)) - 1n);
  if (hostBits !== 0n) return `"${text}" has address bits set past its /${bitsText} prefix`;
  return range;
}
