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
