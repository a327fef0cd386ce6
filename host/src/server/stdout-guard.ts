// In stdio mode stdout belongs to JSON-RPC. Anything else in the process that writes there
// (a policy module's console.log, a dependency's banner, a worker's stdout) goes to stderr
// instead; only the writer handed out here reaches the real stdout.
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';

export interface ReservedStdout {
  /** Writes to the real stdout. */
  write(text: string): void;
  /** Gives stdout back (for in-process tests; the CLI exits instead). */
  release(): void;
}

export function reserveStdout(): ReservedStdout {
  const stdout = process.stdout;
  const original = stdout.write;
  const toStderr = process.stderr.write.bind(process.stderr);
  // console.log/info/debug and stream pipes all end in stdout.write, so redirecting it covers them.
  stdout.write = toStderr as typeof stdout.write;
  const fd = (stdout as { fd?: unknown }).fd;
  const viaStream = (text: string | Buffer) => void original.call(stdout, text);
  return {
    write: typeof fd === 'number' ? syncFirst(stdout, fd, viaStream) : viaStream,
    release() {
      stdout.write = original;
    },
  };
}

/**
 * A writer that puts a message on `fd` with one write(2) while `stream` (over the same fd) holds
 * nothing queued, and hands the stream whatever the kernel did not take: the rest of a short write,
 * or the whole message when the write failed (a full non-blocking pipe's EAGAIN, or an error the
 * stream then reports as before). Once the stream holds bytes, every message goes behind them, so
 * the bytes keep their order. The stream's own path cost a warm call ~3-4 µs of JavaScript (a write
 * request object, its async-hook scope, the after-write tick): docs/decisions.md, "Server CPU per
 * call, eighth round".
 */
function syncFirst(stream: Writable, fd: number, viaStream: (chunk: string | Buffer) => void): (text: string) => void {
  return (text) => {
    if (stream.writableLength !== 0 || stream.destroyed) return viaStream(text);
    let written: number;
    try {
      written = writeSync(fd, text);
    } catch {
      return viaStream(text);
    }
    if (written < Buffer.byteLength(text)) viaStream(Buffer.from(text).subarray(written));
  };
}
