// Tight defaults (docs/authoring.md, "The manifest"): a manifest that says nothing gets no network, no files, 16 MiB of
// memory, 10 s per call and 1 MiB in each direction. Upper bounds keep an "impossible" value (a
// typo with three extra zeros) from loading at all. The limits' defaults and bounds are the
// sandbox's one table (sandbox/limits.ts LIMITS); the rest bound what a manifest says of itself.
import { LIMITS } from '../sandbox/index.js';

export const KIB = 1024;
export const MIB = 1024 * 1024;
/** One WebAssembly page. */
export const PAGE_BYTES = 64 * KIB;

export const MANIFEST_DEFAULTS = {
  maxPages: LIMITS.maxPages.default,
  timeoutMs: LIMITS.timeoutMs.default,
  maxOutputBytes: LIMITS.maxOutputBytes.default,
  maxInputBytes: LIMITS.maxInputBytes.default,
  maxHttpResponseBytes: LIMITS.maxHttpResponseBytes.default,
  /** Bytes one call may write to each rw mount (allowed_paths.<guest>.max_bytes). */
  maxWriteBytes: LIMITS.maxWriteBytes.default,
  /** Files and directories one call may create in each rw mount (allowed_paths.<guest>.max_entries). */
  maxWriteEntries: LIMITS.maxWriteEntries.default,
  /** Instances of one tool that may run at once (pool.max). */
  poolMax: LIMITS.poolMax.default,
  /** Total bytes of an instance's Extism vars (the SDK's memory.maxVarBytes). */
  maxVarBytes: LIMITS.maxVarBytes.default,
} as const;

export const MANIFEST_BOUNDS = {
  /** The WebAssembly 32-bit maximum (4 GiB). */
  maxPages: LIMITS.maxPages.max,
  /** Ten minutes; policies may cap lower. */
  timeoutMs: LIMITS.timeoutMs.max,
  /** For every byte cap (input, output, HTTP response, vars). */
  maxBytes: LIMITS.maxOutputBytes.max,
  descriptionChars: 4096,
  titleChars: 256,
  paramDescriptionChars: 2048,
  templateChars: 16 * KIB,
  configValueChars: 64 * KIB,
  poolMax: LIMITS.poolMax.max,
  /** allowed_paths.<guest>.max_bytes: 16 GiB. */
  maxWriteBytes: LIMITS.maxWriteBytes.max,
  /** allowed_paths.<guest>.max_entries. */
  maxWriteEntries: LIMITS.maxWriteEntries.max,
  poolIdleMs: LIMITS.poolIdleMs.max,
  /** Modules in module.link. */
  maxLinks: LIMITS.links.max,
} as const;
