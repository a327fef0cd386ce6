// Prepared modules on disk, so a second start does not check, patch and instrument a module again
// (instrumenting a 1-2 MB module takes 150-200 ms). One file per key: a header line of JSON (format,
// key, the digest of the prepared bytes and what preparing learnt) and the prepared bytes. The key
// covers the module's digest, every option that changes the patch and the identity of the code
// that patches; a file that is truncated, corrupt, for another key or unreadable is ignored and
// rebuilt, and a folder that cannot be written is skipped without a word: the cache only saves
// time. V8 offers no way to keep a compiled WebAssembly.Module across processes, so the compile
// itself (Liftoff, a few ms per MB) is still paid on every start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { writeCacheFile } from '../../cache-files/index.js';
import { preparedModuleCacheDir } from '../prepared-cache-dir.js';
import type { PrepareOptions, PreparedModule } from './prepare.js';

/**
 * Bumped when the file layout changes, or when preparing writes different bytes for the same key
 * (the code identity below is this file's, not the patcher's). 3: table maxima capped (tables.ts)
 * and bulk instructions charged by count (preempt.ts).
 */
const FORMAT = 3;
const MAGIC = 'toolgate-prepared\n';

export type PreparedInfo = Omit<PreparedModule, 'bytes'>;

const infoSchema = z.strictObject({
  usesWasi: z.boolean(),
  usesHttp: z.boolean(),
  clientImports: z.array(z.enum(['log', 'progress', 'elicit', 'sample'])),
  returnsStatus: z.boolean(),
  hasInitialize: z.boolean(),
  hasStart: z.boolean(),
  hasHsInit: z.boolean(),
  hasMemory: z.boolean(),
  memoryMaxPages: z.number().int().nonnegative(),
  preemptible: z.boolean(),
}) satisfies z.ZodType<PreparedInfo>;

const headerSchema = z.strictObject({ format: z.literal(FORMAT), key: z.string(), bytesSha256: z.string(), info: infoSchema });

/** What the running patcher is: its code file's digest (a rebuild or an upgrade changes it). */
let codeIdentity: string | undefined;
function patcherIdentity(): string {
  codeIdentity ??= createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex');
  return codeIdentity;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** The cache key of a module prepared with `opts`; undefined when the cache is off. */
export function preparedKey(digest: string, opts: PrepareOptions): string | undefined {
  if (preparedModuleCacheDir() === undefined) return undefined;
  const parts = [FORMAT, patcherIdentity(), digest, opts.maxPages, opts.entry ?? null, opts.wasiNamespace ?? null, opts.linkNamespaces ?? [], opts.wasiImportNames, opts.preempt === true];
  return sha256(JSON.stringify(parts));
}

/** The prepared module stored under `key`, or undefined (absent, damaged or foreign: all the same). */
export async function readPrepared(key: string): Promise<{ bytes: Uint8Array; info: PreparedInfo } | undefined> {
  const dir = preparedModuleCacheDir();
  if (dir === undefined) return undefined;
  let file: Buffer;
  try {
    file = await readFile(join(dir, `${key}.bin`));
  } catch {
    return undefined;
  }
  if (file.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined;
  const end = file.indexOf(0x0a, MAGIC.length);
  if (end < 0) return undefined;
  let header: z.infer<typeof headerSchema>;
  try {
    const parsed = headerSchema.safeParse(JSON.parse(file.subarray(MAGIC.length, end).toString('utf8')));
    if (!parsed.success) return undefined;
    header = parsed.data;
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(file.buffer, file.byteOffset + end + 1, file.length - end - 1);
  if (header.key !== key || sha256(bytes) !== header.bytesSha256) return undefined;
  return { bytes, info: header.info };
}

/** Stores a prepared module; any failure (no folder, not writable, disk full) leaves the cache as it was. */
export async function writePrepared(key: string, bytes: Uint8Array, info: PreparedInfo): Promise<void> {
  const dir = preparedModuleCacheDir();
  if (dir === undefined) return;
  const header = JSON.stringify({ format: FORMAT, key, bytesSha256: sha256(bytes), info });
  await writeCacheFile(dir, `${key}.bin`, Buffer.concat([Buffer.from(MAGIC + header + '\n', 'utf8'), bytes]));
}
