// Prepared modules on disk, so a second start does not check, patch and instrument a module again
// (instrumenting a 1-2 MB module takes 150-200 ms). One file per key: the magic line, the seal, a
// header line of JSON (format, key, what the entry is for, what preparing learnt) and the prepared
// bytes. The key covers the module's digest, every option that changes the patch and the identity
// of the code that patches. The seal (cache-files, architecture.md §5) covers the key, the source
// digest, the path the bytes were prepared for (instrumented for the calling thread, or not, for a
// worker), the header and the bytes: a file that is truncated, corrupt, for another key or
// another path, or not sealed with this home's key is ignored and rebuilt, and a folder that
// cannot be written is skipped without a word: the cache only saves time. V8 offers no way to keep
// a compiled WebAssembly.Module across processes, so the compile itself (Liftoff, a few ms per MB)
// is still paid on every start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { sealMatches, sealOf, writeCacheEntry, type CacheFolder } from '../../cache-files/index.js';
import { preparedModuleCache } from '../prepared-cache-dir.js';
import type { PrepareOptions, PreparedModule } from './prepare.js';
import { CLIENT_IMPORT_NAMES } from './host-imports.js';

/**
 * Bumped when the file layout changes, or when preparing writes different bytes for the same key
 * (the code identity below is this file's, not the patcher's). 4: sealed, with what the entry is
 * for; table maxima capped (tables.ts); bulk instructions charged by count (preempt.ts). 5: loop
 * heads charged to a local pocket (preempt.ts).
 */
const FORMAT = 5;
const MAGIC = 'toolgate-prepared\n';
const KIND = 'toolgate-prepared-module';

export type PreparedInfo = Omit<PreparedModule, 'bytes'>;

const buildInfoSchema = () =>
  z.strictObject({
    usesWasi: z.boolean(),
    usesHttp: z.boolean(),
    clientImports: z.array(z.enum(CLIENT_IMPORT_NAMES)),
    returnsStatus: z.boolean(),
    hasInitialize: z.boolean(),
    hasStart: z.boolean(),
    hasHsInit: z.boolean(),
    hasMemory: z.boolean(),
    memoryMaxPages: z.number().int().nonnegative(),
    preemptible: z.boolean(),
  }) satisfies z.ZodType<PreparedInfo>;

/** The path a module is prepared for: with the fuel counter (the calling thread) or without (a worker only). */
type PreparedPath = 'in-thread' | 'worker';

const buildHeaderSchema = () =>
  z.strictObject({
    format: z.literal(FORMAT),
    key: z.string(),
    source: z.string(),
    path: z.enum(['in-thread', 'worker']),
    info: buildInfoSchema(),
  });

/** Built on the first entry read, not when the sandbox's code loads (docs/decisions.md, "First call of a fresh server, warm home"). */
let headerSchema: ReturnType<typeof buildHeaderSchema> | undefined;

/** One entry's name and what it is for: all of it sealed, so an entry cannot be replayed for another. */
export interface PreparedEntry {
  key: string;
  /** The sha256 of the module as the manifest names it, before preparing. */
  source: string;
  path: PreparedPath;
  cache: CacheFolder;
}

/** What the running patcher is: its code file's digest (a rebuild or an upgrade changes it). */
let codeIdentity: string | undefined;
function patcherIdentity(): string {
  codeIdentity ??= createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex');
  return codeIdentity;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** The cache entry of a module prepared with `opts`; undefined when the cache is off. */
export function preparedEntry(digest: string, opts: PrepareOptions): PreparedEntry | undefined {
  const cache = preparedModuleCache();
  if (cache === undefined) return undefined;
  const parts = [
    FORMAT,
    patcherIdentity(),
    digest,
    opts.maxPages,
    opts.entry ?? null,
    opts.wasiNamespace ?? null,
    opts.linkNamespaces ?? [],
    opts.wasiImportNames,
    opts.preempt === true,
    ...(opts.component === true ? ['component'] : []),
  ];
  return {
    key: sha256(JSON.stringify(parts)),
    source: digest,
    path: opts.preempt === true ? 'in-thread' : 'worker',
    cache,
  };
}

/** What the seal of an entry covers: what it is for, then its header line and its bytes. */
const sealed = (entry: PreparedEntry, header: Uint8Array, bytes: Uint8Array): (string | Uint8Array)[] => [
  KIND,
  String(FORMAT),
  entry.key,
  entry.source,
  entry.path,
  header,
  bytes,
];

/** An entry's parts as read, nothing of them trusted yet (checkPrepared says whether they may be). */
export interface UncheckedEntry {
  seal: string;
  header: Uint8Array;
  bytes: Uint8Array;
}

/**
 * The file stored for `entry`, cut into its parts, or undefined (absent or not laid out as an
 * entry). Read synchronously, so the source's hash before it, this read and the start of the
 * compile after it run in one turn of the event loop: with an asynchronous read, a request that
 * arrived meanwhile (a JavaScript tool's first tools/call, whose argument validator takes 60-400 ms
 * to compile) held the compile of its 12 MB engine behind it (docs/decisions.md, "JavaScript tools:
 * the first call and the warm calls"). A 12 MB entry reads in 5-8 ms from the page cache.
 */
export function readPreparedFile(entry: PreparedEntry): UncheckedEntry | undefined {
  let file: Buffer;
  try {
    file = readFileSync(join(entry.cache.dir, `${entry.key}.bin`));
  } catch {
    return undefined;
  }
  if (file.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined;
  const sealEnd = file.indexOf(0x0a, MAGIC.length);
  if (sealEnd < 0) return undefined;
  const end = file.indexOf(0x0a, sealEnd + 1);
  if (end < 0) return undefined;
  return {
    seal: file.subarray(MAGIC.length, sealEnd).toString('latin1'),
    header: file.subarray(sealEnd + 1, end),
    bytes: new Uint8Array(file.buffer, file.byteOffset + end + 1, file.length - end - 1),
  };
}

/**
 * What preparing learnt, when `read` is sealed with this home's key for `entry` and its header
 * says the same; undefined when it is damaged, foreign or forged (all the same).
 */
export function checkPrepared(entry: PreparedEntry, read: UncheckedEntry): PreparedInfo | undefined {
  // the seal first: nothing of an entry another hand wrote is parsed, let alone trusted
  if (!sealMatches(entry.cache.secret, sealed(entry, read.header, read.bytes), read.seal)) return undefined;
  try {
    // one parse per module read: zod's generated fast path would cost more to build than it saves
    const parsed = (headerSchema ??= buildHeaderSchema()).safeParse(
      JSON.parse(Buffer.from(read.header).toString('utf8')),
      {
        jitless: true,
      },
    );
    if (!parsed.success) return undefined;
    const h = parsed.data;
    if (h.key !== entry.key || h.source !== entry.source || h.path !== entry.path) return undefined;
    return h.info;
  } catch {
    return undefined;
  }
}

/**
 * Stores a prepared module; any failure (no folder, not writable, disk full) leaves the cache as it
 * was. The entry may be sealed and written later (cache-files/later.ts): `bytes` must be the
 * caller's to give up (module/cache.ts keeps no other reference to them).
 */
export async function writePrepared(entry: PreparedEntry, bytes: Uint8Array, info: PreparedInfo): Promise<void> {
  // the header now: `info` goes on to the caller
  const header = Buffer.from(
    JSON.stringify({ format: FORMAT, key: entry.key, source: entry.source, path: entry.path, info }),
    'utf8',
  );
  await writeCacheEntry(entry.cache.dir, `${entry.key}.bin`, () => {
    const seal = sealOf(entry.cache.secret, sealed(entry, header, bytes));
    return Buffer.concat([Buffer.from(`${MAGIC}${seal}\n`, 'latin1'), header, Buffer.from('\n'), bytes]);
  });
}
