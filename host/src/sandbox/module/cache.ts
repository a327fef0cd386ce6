// One compiled module per (sha256, memory cap, entry, namespaces, instrumentation): compiling is the
// expensive step, and the patched bytes depend on the cap, the entry (the status wrapper), the import
// namespaces and whether the module is instrumented for preemption.
import { SandboxLoadError } from '../load-error.js';
import {
  checkPrepared,
  preparedEntry,
  readPreparedFile,
  writePrepared,
  type PreparedEntry,
  type PreparedInfo,
} from './disk-cache.js';
import { prepareModule, type PrepareOptions, type PreparedModule } from './prepare.js';
import { messageOf } from '../../errors/index.js';
import { sha256Hex, sha256HexOnce } from '../../digest/index.js';

export interface CompiledModule {
  sha256: string;
  module: WebAssembly.Module;
  info: Omit<PreparedModule, 'bytes'>;
}

const cache = new Map<string, Promise<CompiledModule>>();

/** The file a module was cut from (a component's core module) and that file's digest, checked by the caller. */
export interface DerivedFrom {
  digest: string;
  bytes: Uint8Array;
}

/**
 * `sha256` is the manifest's pin of `wasm`. `derivedFrom` instead names the file `wasm` was cut from,
 * checked by the caller: a component's core module is keyed by the component's digest and the
 * component flag (both in every key below), since hashing its 12 MB again cost 8 ms a load. The
 * digest is the one taken when the bytes were read, when they were (sha256HexOnce).
 */
export function compileModule(
  wasm: Uint8Array,
  opts: PrepareOptions,
  sha256?: string,
  derivedFrom?: DerivedFrom,
): Promise<CompiledModule> {
  const digest = derivedFrom?.digest ?? sha256HexOnce(wasm);
  if (sha256 !== undefined && sha256.toLowerCase() !== digest) {
    const which = opts.label ?? 'module';
    return Promise.reject(
      new SandboxLoadError(
        'BAD_MODULE',
        `tool "${opts.tool}": ${which} sha256 is ${digest}, the manifest pins ${sha256}`,
      ),
    );
  }
  const key = JSON.stringify([
    digest,
    opts.maxPages,
    opts.entry ?? null,
    opts.wasiNamespace ?? null,
    opts.linkNamespaces ?? [],
    opts.label ?? null,
    opts.preempt === true,
    opts.component === true,
  ]);
  let hit = cache.get(key);
  if (!hit) {
    hit = build(wasm, opts, digest, derivedFrom?.bytes ?? wasm);
    cache.set(key, hit);
    // a failed load is not cached: the next load reports it afresh
    hit.catch(() => cache.delete(key));
  }
  return hit;
}

/** Where the last builds came from (tests and the bench read it). */
export const preparedCacheStats = { fromDisk: 0, prepared: 0 };

async function build(
  wasm: Uint8Array,
  opts: PrepareOptions,
  digest: string,
  source: Uint8Array,
): Promise<CompiledModule> {
  const entry = preparedEntry(digest, opts);
  const stored = entry === undefined ? undefined : await fromDisk(entry);
  if (stored !== undefined) {
    preparedCacheStats.fromDisk++;
    return { sha256: digest, ...stored };
  }
  // a remembered digest names the bytes as they were read: before preparing (and storing under that
  // digest) what is in memory now, check it still is them (one more hash beside 150+ ms of preparing)
  if (sha256Hex(source) !== digest)
    throw new SandboxLoadError(
      'BAD_MODULE',
      `tool "${opts.tool}": ${opts.label ?? 'module'} changed in memory after it was hashed (sha256 ${digest})`,
    );
  const { bytes, ...info } = prepareModule(wasm, opts);
  preparedCacheStats.prepared++;
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(bytes);
  } catch (err) {
    throw new SandboxLoadError(
      'BAD_MODULE',
      `tool "${opts.tool}": ${opts.label ?? 'module'} does not compile: ${messageOf(err)}`,
    );
  }
  if (entry !== undefined) await writePrepared(entry, bytes, info);
  return { sha256: digest, module, info };
}

/**
 * The stored prepared module of `entry`, compiled, or undefined (absent, unsealed, or one that no
 * longer compiles: a Node upgrade, say; it is then prepared afresh). The compile starts before the
 * seal is checked, so V8's background threads compile while this thread hashes 12 MB for the seal
 * (docs/decisions.md, "JavaScript tools: the first call, third round"); compiling runs nothing, and
 * the module is used only when the seal matches, so an entry another hand wrote is never run.
 */
async function fromDisk(entry: PreparedEntry): Promise<{ module: WebAssembly.Module; info: PreparedInfo } | undefined> {
  const read = readPreparedFile(entry);
  if (read === undefined) return undefined;
  const compiling = WebAssembly.compile(read.bytes).catch(() => undefined);
  const info = checkPrepared(entry, read);
  if (info === undefined) return undefined;
  const module = await compiling;
  return module === undefined ? undefined : { module, info };
}

/** Forgets the compiled modules of this process (tests: the next load reads the disk cache or prepares). */
export function forgetCompiledModules(): void {
  cache.clear();
}

/** How many compiled modules are cached (for stats and tests). */
export function compiledModuleCount(): number {
  return cache.size;
}
