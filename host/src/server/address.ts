// Where the HTTP server listens, and whether that is reachable only from this machine.
import { isIP } from 'node:net';

export interface BindAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT` (`[::1]:8787` for IPv6). Port 0 asks the OS for a free one. */
export function parseBindAddress(text: string): BindAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (m === null) throw new Error(`--http: expected PORT or HOST:PORT (e.g. 8787 or 127.0.0.1:8787), got "${text}"`);
  const host = (m[1] ?? m[2] ?? '').toLowerCase();
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`--http: port must be 0-65535, got ${port}`);
  return { host, port };
}

/** Loopback means 127.0.0.0/8, ::1 or the name localhost: nothing off this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && (mapped[1] ?? '').startsWith('127.');
}

/** How a URL names this address (IPv6 in brackets). */
export function formatAddress(addr: BindAddress): string {
  return isIP(addr.host) === 6 ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
}

/**
 * The client a limit counts a connection against: its IPv4 address (an IPv4-mapped IPv6 one
 * unwrapped), or the /64 an IPv6 address is in (one host is routinely given a whole /64, so
 * counting single IPv6 addresses would give it 2^64 budgets).
 */
export function clientKey(remote: string | undefined): string {
  if (remote === undefined || remote === '') return '?';
  const h = remote.toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIP(h) !== 6) return h;
  const [head = '', tail] = h.split('::');
  const groups = (part: string): string[] =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${all
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
