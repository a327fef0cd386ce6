// Open connections per address, against the shipped `serve --http` with a token: a client that
// opens connections and sends half a request's headers (no credential yet) holds at most 512 at
// once; the next is closed as it is accepted, and a client at another address is served as before
// (host/src/server/connection-cap.ts). Without the cap, 3,000 such connections from one address
// were all held open.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHttp, waitFor, type HttpProcess } from './helpers.js';

const CAP = 512;
let h: HttpProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  h = await startHttp(['--http', '127.0.0.1:0', '--token', 'cap-token']);
}, 30_000);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await h?.stop();
});

/** A connection from `from` that sends a request line and one header, then nothing. */
function halfRequest(from: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const port = Number(new URL(h.url).port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from }, () => {
      socket.write(`POST /v1/tools/greet/call HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      resolve({ socket, closed });
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', (err) => (socket.connecting ? reject(err) : undefined));
    sockets.push(socket);
  });
}

test('one address holds at most 512 half-sent requests; the next connection is closed at once, and another address is served', async () => {
  const held: { socket: Socket; closed: Promise<void> }[] = [];
  for (let i = 0; i < CAP; i++) held.push(await halfRequest('127.0.0.2'));
  const over = await halfRequest('127.0.0.2');
  await waitFor(
    'the connection past the cap to be closed',
    async () => (over.socket.destroyed ? true : undefined),
    5_000,
  );
  // the ones within the cap are still open
  expect(held.filter((c) => c.socket.destroyed)).toEqual([]);
  const health = await fetch(`${h.url}/healthz`);
  expect(health.status).toBe(200);
  // a slot freed is a slot again
  held[0]?.socket.destroy();
  await held[0]?.closed;
  await new Promise((r) => setTimeout(r, 200));
  const again = await halfRequest('127.0.0.2');
  await new Promise((r) => setTimeout(r, 500));
  expect(again.socket.destroyed).toBe(false);
}, 60_000);
