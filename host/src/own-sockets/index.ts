// The sockets this toolgate process listens on, process-wide. The HTTP server registers its bound
// address when it listens and removes it on close; the sandbox's HTTP gate refuses every
// connection that would land on one of them, however the address is spelled, so a tool can never
// call its own server's /mcp, /v1/tools or /v1/approvals (architecture.md §4).
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

interface Listener {
  /** Canonical bound address: IPv4 dotted quad, or IPv6 groups; '0.0.0.0' / '::' for a wildcard. */
  address: string;
  port: number;
}

const listeners = new Set<Listener>();

/** Registers a listening socket; the returned function removes it (idempotent). */
export function registerOwnListener(address: string, port: number): () => void {
  const entry: Listener = { address: unmapped(address), port };
  listeners.add(entry);
  return () => void listeners.delete(entry);
}

/** How many sockets are registered (for tests and diagnostics). */
export function ownListenerCount(): number {
  return listeners.size;
}

/**
 * Whether connecting to `address:port` (an IP literal, any spelling Node accepts) could reach a
 * socket of this process. Conservative on purpose: a loopback or unspecified destination matches
 * any own socket on that port bound to loopback, to a wildcard or to the same address.
 */
export function isOwnListener(address: string, port: number): boolean {
  if (listeners.size === 0) return false;
  const target = unmapped(address);
  for (const l of listeners) {
    if (l.port !== port) continue;
    if (reaches(target, l)) return true;
  }
  return false;
}

function reaches(target: string, l: Listener): boolean {
  if (target === l.address) return true;
  const targetLocal = isLoopbackOrUnspecified(target);
  if (isUnspecified(l.address)) return targetLocal || localAddresses().has(target);
  // Connecting to 0.0.0.0 or :: reaches this host; any loopback address reaches a loopback bind.
  if (isUnspecified(target)) return true;
  return targetLocal && isLoopbackOrUnspecified(l.address);
}

/** IPv4-mapped and IPv4-compatible IPv6 addresses reach their IPv4 address; compare on that. */
function unmapped(raw: string): string {
  const bare = raw
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (isIP(bare) !== 6) return bare;
  const groups = ipv6Groups(bare);
  if (groups === undefined) return bare;
  const upperZero = groups.slice(0, 5).every((g) => g === 0);
  const g5 = groups[5] ?? 0;
  const g6 = groups[6] ?? 0;
  const g7 = groups[7] ?? 0;
  const embedsV4 = upperZero && (g5 === 0xffff || (g5 === 0 && g6 !== 0));
  if (embedsV4) return `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  return groups.map((g) => g.toString(16)).join(':');
}

/** IPv6 text to eight 16-bit groups (an embedded dotted quad allowed); undefined when malformed. */
function ipv6Groups(text: string): number[] | undefined {
  let head = text;
  const tail: number[] = [];
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad !== null) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    head = text.slice(0, quad.index);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const split = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const gap = head.indexOf('::');
  const want = 8 - tail.length;
  let groups: number[];
  if (gap >= 0) {
    const left = split(head.slice(0, gap));
    const right = split(head.slice(gap + 2));
    groups = [...left, ...new Array<number>(Math.max(0, want - left.length - right.length)).fill(0), ...right];
  } else {
    groups = split(head);
  }
  groups.push(...tail);
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function isUnspecified(a: string): boolean {
  return a === '0:0:0:0:0:0:0:0' || /^0\./.test(a);
}

function isLoopbackOrUnspecified(a: string): boolean {
  return isUnspecified(a) || a.startsWith('127.') || a === '0:0:0:0:0:0:0:1';
}

/** Every address of this machine's interfaces, canonical; read per check so new ones count. */
function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) out.add(unmapped(info.address));
  }
  return out;
}
