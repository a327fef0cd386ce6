import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { createHttpGate } from '../../host/src/sandbox/http/index.js';
import { startServer, text, type TestServer } from './http-test-servers.js';

const MiB = 1024 * 1024;
const never = (): AbortSignal => new AbortController().signal;

/** Streams `total` bytes in 64 KiB chunks, honouring backpressure; records how many it wrote. */
function stream(
  res: ServerResponse,
  total: number,
  written: { bytes: number; finished: boolean; closed: boolean },
): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const pump = (): void => {
    while (written.bytes < total) {
      if (res.destroyed) return; // the client went away: stop, and never count it as finished
      written.bytes += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    written.finished = true;
    res.end();
  };
  res.on('close', () => {
    res.removeAllListeners('drain');
    written.closed = true;
  });
  pump();
}

let server: TestServer;
const chunked = { bytes: 0, finished: false, closed: false };
const declared = { bytes: 0, finished: false, closed: false };

/** Waits until the server saw its response's connection close (the gate aborted it, or it ended). */
async function closed(written: { closed: boolean }): Promise<void> {
  const end = performance.now() + 10_000;
  while (!written.closed) {
    if (performance.now() > end) throw new Error('the server never saw the connection close');
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeAll(async () => {
  server = await startServer('127.0.0.1', (req, res) => {
    if (req.url === '/chunked-64m') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // no length: chunked
      stream(res, 64 * MiB, chunked);
    } else if (req.url === '/declared-64m') {
      res.writeHead(200, { 'content-length': String(64 * MiB) });
      stream(res, 64 * MiB, declared);
    } else {
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size'));
      res.end(Buffer.alloc(size, 0x62));
    }
  });
  // Warm up: the first request loads undici's code; that is not what the RSS test measures.
  const warm = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: MiB, timeoutMs: 5000 });
  await warm.request({ method: 'GET', url: server.url('/sized?size=100000'), headers: {} }, never());
});

afterAll(async () => {
  await server.close();
});

describe('response bytes are capped while reading, never after buffering', () => {
  it('a 64 MiB streamed response is cut at the cap with bounded RSS growth', async () => {
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: MiB, timeoutMs: 20_000 });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    const t0 = performance.now();
    const out = await gate.request({ method: 'GET', url: server.url('/chunked-64m'), headers: {} }, never());
    const elapsed = performance.now() - t0;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(out, 'outcome').toEqual({ ok: false, error: `response larger than ${MiB} bytes` });
    const growth = (peak - before) / MiB;
    console.log(
      `64 MiB response, cap 1 MiB: ${elapsed.toFixed(1)} ms, peak RSS growth ${growth.toFixed(1)} MiB, server wrote ${(chunked.bytes / MiB).toFixed(1)} MiB before the connection closed`,
    );
    expect(growth, `peak RSS growth ${growth.toFixed(1)} MiB`).toBeLessThan(24);
    // The connection was aborted: the server never got to write the whole 64 MiB.
    await closed(chunked);
    expect(chunked.finished, 'server finished writing 64 MiB').toBe(false);
    expect(chunked.bytes, 'bytes the server wrote').toBeLessThan(32 * MiB);
  });

  it('a declared Content-Length over the cap is refused before the body is read', async () => {
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: MiB, timeoutMs: 20_000 });
    const out = await gate.request({ method: 'GET', url: server.url('/declared-64m'), headers: {} }, never());
    expect(out).toEqual({ ok: false, error: `response larger than ${MiB} bytes` });
    await closed(declared);
    expect(declared.finished).toBe(false);
    expect(declared.bytes).toBeLessThan(32 * MiB);
  });

  it('a body of exactly the cap passes and one byte more is refused', async () => {
    const gate = createHttpGate({ allowedHosts: [server.authority], maxResponseBytes: 1000, timeoutMs: 5000 });
    const exact = await gate.request({ method: 'GET', url: server.url('/sized?size=1000'), headers: {} }, never());
    expect(exact.ok && exact.body.byteLength).toBe(1000);
    expect(exact.ok && text(exact.body.subarray(0, 3))).toBe('bbb');
    const over = await gate.request({ method: 'GET', url: server.url('/sized?size=1001'), headers: {} }, never());
    expect(over).toEqual({ ok: false, error: 'response larger than 1000 bytes' });
  });
});
