// Durable writes: data is fsynced before it is renamed into place and the folder is fsynced after,
// so a crash leaves either the old file or the new one, never a torn one.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function writeDurable(file: string, data: Uint8Array | string, mode = 0o644): Promise<void> {
  const handle = await open(file, 'w', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a temp file next to `file`, fsyncs it, renames it over `file`, fsyncs the folder. */
export async function replaceFile(file: string, data: Uint8Array | string, mode = 0o644): Promise<void> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeDurable(tmp, data, mode);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await fsyncDir(dir);
}
