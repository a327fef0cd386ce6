// Request framing a hostile client may send to the plain HTTP API (the shipped `serve --http`), raw
// over a socket: two Content-Length headers (differing or equal), Content-Length beside
// Transfer-Encoding, a folded Transfer-Encoding, a negative or overlong length, an overlong chunk
// size, and a length over the body cap. Each is refused (400 from the HTTP parser, or 413 for the
// cap); a well-formed chunked body is served; bodies trickled in chunks use up only their own
// address's concurrent-request slots. These held when tried (a red team round).
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ROOT, startHttp, tempDir, type HttpProcess } from './helpers.js';
import { join } from 'node:path';

let dir: Awaited<ReturnType<typeof tempDir>>;
let h: HttpProcess;
let port = 0;

beforeAll(async () => {
  dir = await tempDir();
  h = await startHttp(
    ['--http', '127.0.0.1:0', '--manifests', join(ROOT, 'manifests/greet.yaml'), '--policies', 'none'],
    {
      TOOLGATE_HOME: join(dir.path, 'home'),
    },
  );
  port = Number(new URL(h.url).port);
}, 30_000);
afterAll(async () => {
  await h?.stop();
  await dir?.remove();
});

/** Sends `text` as it is and returns the status line of the answer. */
function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('close', () => resolve(out.split('\r\n')[0] ?? ''));
    s.setTimeout(5000, () => s.destroy());
  });
}

const body = '{"arguments":{"name":"Ada"}}';
const head = () =>
  `POST /v1/tools/greet/call HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nConnection: close\r\n`;
const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;

test.each([
  ['two differing Content-Length headers', () => `Content-Length: ${body.length}\r\nContent-Length: 5\r\n\r\n${body}`],
  [
    'two equal Content-Length headers',
    () => `Content-Length: ${body.length}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  ],
  [
    'Content-Length beside Transfer-Encoding',
    () => `Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`,
  ],
  ['a Transfer-Encoding folded onto a second line', () => `Transfer-Encoding:\r\n chunked\r\n\r\n${chunked}`],
  ['a negative Content-Length', () => `Content-Length: -1\r\n\r\n${body}`],
  ['a Content-Length past 2^64', () => `Content-Length: 99999999999999999999\r\n\r\n${body}`],
  ['a chunk size past 2^64', () => `Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n${body}\r\n0\r\n\r\n`],
])('%s is 400 Bad Request', async (_what, rest) => {
  expect(await raw(head() + rest())).toBe('HTTP/1.1 400 Bad Request');
});

test('a Content-Length over the body cap is 413 before the body is read', async () => {
  expect(await raw(`${head()}Content-Length: ${5 * 1024 * 1024}\r\n\r\n${body}`)).toBe(
    'HTTP/1.1 413 Payload Too Large',
  );
});

test('a well-formed chunked body is served', async () => {
  expect(await raw(`${head()}Transfer-Encoding: chunked\r\n\r\n${chunked}`)).toBe('HTTP/1.1 200 OK');
});

test('bodies trickled in chunks hold only their own address: its 65th request is 429 while another address is served', async () => {
  const trickles = Array.from({ length: 64 }, () => {
    const s = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }, () =>
      s.write(`${head()}Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`),
    );
    s.on('error', () => {});
    return s;
  });
  try {
    // every trickle has its slot once its headers are in
    await new Promise((r) => setTimeout(r, 1000));
    const over = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' }, () =>
        s.write(`${head()}Content-Length: ${body.length}\r\n\r\n${body}`),
      );
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString()));
      s.on('close', () => resolve(out.split('\r\n')[0] ?? ''));
      s.setTimeout(5000, () => s.destroy());
    });
    expect(over).toBe('HTTP/1.1 429 Too Many Requests');
    expect(await raw(`${head()}Content-Length: ${body.length}\r\n\r\n${body}`)).toBe('HTTP/1.1 200 OK');
  } finally {
    for (const s of trickles) s.destroy();
  }
}, 30_000);
