// Cache entries written after the work that made them: a fresh server's first call prepares its
// module, and sealing and writing the entry on that call's path delayed the answer
// (docs/decisions.md, "First call with an empty home: cache writes after the answer"). An entry is
// written in a later turn of the event loop; the CLI waits for what is pending before it exits.
import { writeCacheFile } from './write.js';

const pending = new Set<Promise<void>>();

/**
 * Writes `folder/name` as writeCacheFile does, after the current turn (setImmediate: the calling
 * code's microtasks and the answer they write come first). `data` is made then, so its cost (a
 * seal over the bytes) is also off the caller's path; a throw leaves the cache as it was.
 */
export function writeCacheFileLater(folder: string, name: string, data: () => string | Uint8Array): void {
  const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => writeCacheFile(folder, name, data()))
    .catch(() => undefined)
    .finally(() => pending.delete(done));
  pending.add(done);
}

/** Resolves once every entry handed to writeCacheFileLater so far is written (or failed). */
export async function cacheWritesDone(): Promise<void> {
  for (let round = 0; pending.size > 0 && round < 100; round++) await Promise.all([...pending]);
}
