// Writing one cache entry: whole or not at all.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `folder/name` whole or not at all: a fresh temporary name and a rename, so a reader never
 * sees half a file and two writers never mix (the folder 0700, the file 0600). Any failure (no
 * folder, not writable, disk full) leaves the cache as it was: a cache only saves time.
 */
export async function writeCacheFile(folder: string, name: string, data: string | Uint8Array): Promise<void> {
  const tmp = join(folder, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, join(folder, name));
  } catch {
    await rm(tmp, { force: true }).catch(() => {});
  }
}
