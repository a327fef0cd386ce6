// Which special-purpose range an IP address falls in. A name that resolves into one of these is
// refused unless the address itself is listed, because "allowed host" must not become a way to
// reach the machine's own services, the LAN or a cloud metadata endpoint.
import { parseIpv4, parseIpv6 } from '../../host-grammar/index.js';

export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'unspecified'
  | 'multicast'
  | 'cloud metadata'
  | 'reserved';

/** Human phrase for messages: "a loopback address", "an unspecified address". */
export function describeClass(cls: AddressClass): string {
  const article = /^[aeiou]/.test(cls) ? 'an' : 'a';
  return `${article} ${cls} address`;
}

interface V4Range {
  base: number;
  bits: number;
  cls: AddressClass;
}

function v4(text: string, bits: number, cls: AddressClass): V4Range {
  const n = parseIpv4(text);
  if (n === undefined) throw new Error(`bad range ${text}`);
  return { base: n, bits, cls };
}

// Order matters: the first match names the class (metadata before link-local).
const V4_RANGES: readonly V4Range[] = [
  v4('0.0.0.0', 8, 'unspecified'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('10.0.0.0', 8, 'private'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.168.0.0', 16, 'private'),
  v4('100.64.0.0', 10, 'shared (CGNAT)'),
  v4('169.254.169.254', 32, 'cloud metadata'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

function classifyV4(n: number): AddressClass | undefined {
  for (const r of V4_RANGES) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if ((n & mask) >>> 0 === (r.base & mask) >>> 0) return r.cls;
  }
  return undefined;
}

function embeddedV4(hi: number, lo: number): number {
  return ((hi << 16) | lo) >>> 0;
}

function classifyV6(g: number[]): AddressClass | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // Forms that carry an IPv4 address reach that IPv4 address: judge it by its IPv4 class.
  if (upperZero && (g5 === 0xffff || g5 === 0)) return classifyV4(embeddedV4(g6, g7)); // mapped, compatible
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyV4(embeddedV4(g6, g7)); // NAT64 well-known prefix
  }
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2)); // 6to4
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return 'cloud metadata';
  }
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/** The special range `address` is in, or undefined for an ordinary (public) address. */
export function classifyAddress(address: string): AddressClass | undefined {
  const n4 = parseIpv4(address);
  if (n4 !== undefined) return classifyV4(n4);
  const g6 = parseIpv6(address);
  if (g6 !== undefined) return classifyV6(g6);
  return 'reserved'; // not an IP address at all: never connect to it
}
