// The audit service: one chained writer per file, shared by every policy set that logs there, so a
// reload (old and new set alive for a moment) still writes one unbroken chain. Lines are written
// synchronously through pino, so order on disk is the order of the chain.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Json } from '../../tool/index.js';
import { GENESIS, recordHash } from './chain.js';

export interface AuditWriter {
  readonly path: string;
  /** Adds `prev` and `hash` and writes one line; returns the record's hash. */
  append(record: Readonly<Record<string, Json>>): string;
}

/** How much of the file's end is read at a time while looking for where its last line starts. */
const TAIL_BYTES = 1 << 20;

/**
 * The file's last non-empty line. Read backwards a window at a time until the line's start: a
 * record may be longer than any one window (a call's arguments up to the request's cap, audited
 * even when refused), and linking to a cut line would refuse every later start.
 */
function lastLine(fd: number, size: number): string | undefined {
  let end = size;
  let tail = Buffer.alloc(0);
  while (end > 0) {
    const len = Math.min(end, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, end - len);
    end -= len;
    tail = Buffer.concat([buf, tail]);
    const body = tail.subarray(0, trimmedLength(tail));
    if (body.length > 0 && body.lastIndexOf(0x0a) >= 0) break;
  }
  const lines = tail
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines[lines.length - 1];
}

/** The length of `buf` without its trailing line breaks and blanks. */
function trimmedLength(buf: Buffer): number {
  let n = buf.length;
  while (n > 0 && (buf[n - 1] === 0x0a || buf[n - 1] === 0x0d || buf[n - 1] === 0x20)) n--;
  return n;
}

/** Where the chain in `path` ends: its last hash and next seq (GENESIS, 0 for a new file). */
function chainEnd(path: string): { hash: string; seq: number } {
  const fresh = { hash: GENESIS, seq: 0 };
  if (!existsSync(path)) return fresh;
  const fd = openSync(path, 'r');
  try {
    const last = lastLine(fd, fstatSync(fd).size);
    if (last === undefined) return fresh;
    let rec: unknown;
    try {
      rec = JSON.parse(last);
    } catch {
      rec = undefined;
    }
    const r = typeof rec === 'object' && rec !== null ? (rec as Record<string, unknown>) : {};
    const hash = r.hash;
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      throw new Error(
        `audit file ${path}: its last line is not a toolgate audit record; refusing to extend a chain that cannot be linked`,
      );
    }
    return { hash, seq: typeof r.seq === 'number' ? r.seq + 1 : 0 };
  } finally {
    closeSync(fd);
  }
}

class ChainWriter implements AuditWriter {
  readonly path: string;
  #prev: string;
  #seq = 0;
  readonly #log: Logger;
  readonly #dest: ReturnType<typeof pino.destination>;
  refs = 0;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    const end = chainEnd(path);
    this.#prev = end.hash;
    this.#seq = end.seq;
    this.#dest = pino.destination({ dest: path, sync: true, append: true });
    // No time or pid from pino, and the level as a word: the line is exactly the record the chain
    // hashes (level included), so verify needs nothing but the line.
    this.#log = pino(
      { base: null, timestamp: false, formatters: { level: (label) => ({ level: label }) } },
      this.#dest,
    );
  }

  append(record: Readonly<Record<string, Json>>): string {
    const fields: Record<string, Json> = { ...record, seq: this.#seq++, prev: this.#prev };
    const hash = recordHash({ level: 'info', ...fields });
    this.#log.info({ ...fields, hash });
    this.#prev = hash;
    return hash;
  }

  close(): void {
    try {
      this.#dest.flushSync();
    } catch {
      // nothing buffered in sync mode
    }
    this.#dest.end();
  }
}

/** Hands out shared writers by path; a writer closes when its last user releases it. */
export class AuditService {
  readonly #writers = new Map<string, ChainWriter>();
  /** Where audit-log writes when its entry names no path. */
  readonly defaultPath: string;

  constructor(options: { defaultPath: string }) {
    this.defaultPath = options.defaultPath;
  }

  open(path: string): { writer: AuditWriter; release: () => void } {
    let w = this.#writers.get(path);
    if (!w) {
      w = new ChainWriter(path);
      this.#writers.set(path, w);
    }
    const writer = w;
    writer.refs++;
    let released = false;
    return {
      writer,
      release: () => {
        if (released) return;
        released = true;
        writer.refs--;
        if (writer.refs === 0) {
          this.#writers.delete(path);
          writer.close();
        }
      },
    };
  }
}
