// When cache entries are written. By default at once: the caller awaits its entry. A server that
// starts with an empty home would otherwise seal and write every parsed manifest before it answers
// initialize, and the first call's prepared module before that call is answered; `serve` sets a
// gate instead, so entries wait for turns in which no call runs, once the first listing is
// answered, and are all written when serving ends (docs/decisions.md, "Cache entries written after
// the answers").
import { writeCacheFile } from './write.js';

/** Resolves when the next queued entry may be written. */
export type WriteGate = () => Promise<void>;

/** An entry's bytes, made when it is written; undefined when there is nothing to store after all. */
export type EntryBytes = () => string | Uint8Array | undefined;

interface Pending {
  readonly folder: string;
  readonly name: string;
  readonly bytes: EntryBytes;
}

let gate: WriteGate | undefined;
/** Resolves the wait of an entry when the gate is lifted while it waits. */
let lifted: () => void = () => {};
const queue: Pending[] = [];
let draining: Promise<void> | undefined;

/**
 * From now on entries wait for `next` (one entry per resolution); undefined: the queue is written
 * without waiting and later entries are written at once again.
 */
export function writeCacheEntriesWhen(next: WriteGate | undefined): void {
  gate = next;
  if (next !== undefined) return;
  lifted();
  if (queue.length > 0) drain();
}

/**
 * Stores `folder/name` (writeCacheFile): at once, awaited, when no gate is set; else queued, and
 * the promise resolves at once. A failure to write leaves the cache as it was either way.
 */
export async function writeCacheEntry(folder: string, name: string, bytes: EntryBytes): Promise<void> {
  if (gate === undefined) {
    const data = bytes();
    if (data !== undefined) await writeCacheFile(folder, name, data);
    return;
  }
  queue.push({ folder, name, bytes });
  drain();
}

/** Resolves once no entry is queued (serve's teardown: the next start finds them). */
export async function cacheEntriesWritten(): Promise<void> {
  while (draining !== undefined) await draining;
}

function drain(): void {
  draining ??= drainQueue().finally(() => {
    draining = undefined;
    // an entry queued as the last one was written, after the loop had looked
    if (queue.length > 0) drain();
  });
}

async function drainQueue(): Promise<void> {
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const wait = gate;
    if (wait !== undefined) await Promise.race([wait().catch(() => undefined), new Promise<void>((r) => (lifted = r))]);
    try {
      const data = next.bytes();
      if (data !== undefined) await writeCacheFile(next.folder, next.name, data);
    } catch {
      /* a cache only saves time: an entry that cannot be made is not stored */
    }
  }
}
