// Open connections per client address. A connection is accepted before any credential is read, and
// one that sends half its headers is held by Node for its headers timeout: with no cap a client
// could open connections until the process ran out of file descriptors (the HTTP port, the audit
// log and the tools' modules all need them), token or no token (docs/decisions.md, "Connections
// per address").
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from './address.js';

/** Connections one address (an IPv6 /64) may hold open at once; past it a new one is closed at once. */
export const MAX_CONNECTIONS_PER_ADDRESS = 512;

/** How long a connection may take to send its request headers (Node's default is 60 s). */
export const HEADERS_TIMEOUT_MS = 20_000;

/** Closes each connection past `max` from one address as it is accepted; `refused` hears of each. */
export function capConnectionsPerAddress(server: Server, max: number, refused: (address: string) => void): void {
  const open = new Map<string, number>();
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.on('connection', (socket: Socket) => {
    const key = clientKey(socket.remoteAddress);
    const held = open.get(key) ?? 0;
    if (held >= max) {
      socket.destroy();
      refused(key);
      return;
    }
    open.set(key, held + 1);
    socket.once('close', () => {
      const now = (open.get(key) ?? 1) - 1;
      if (now <= 0) open.delete(key);
      else open.set(key, now);
    });
  });
}
