// Tight defaults (docs/authoring.md, "The manifest"): a manifest that says nothing gets no network, no files, 16 MiB of
// memory, 10 s per call and 1 MiB in each direction. Upper bounds keep an "impossible" value (a
// typo with three extra zeros) from loading at all.

export const KIB = 1024;
export const MIB = 1024 * 1024;
/** One WebAssembly page. */
export const PAGE_BYTES = 64 * KIB;

export const MANIFEST_DEFAULTS = {
  maxPages: 256,
  timeoutMs: 10_000,
  maxOutputBytes: MIB,
  maxInputBytes: MIB,
  maxHttpResponseBytes: MIB,
  /** Bytes one call may write to each rw mount (allowed_paths.<guest>.max_bytes). */
  maxWriteBytes: 64 * MIB,
  /** Files and directories one call may create in each rw mount (allowed_paths.<guest>.max_entries). */
  maxWriteEntries: 10_000,
  /** Instances of one tool that may run at once (pool.max). */
  poolMax: 2,
  /** Total bytes of an instance's Extism vars (the SDK's memory.maxVarBytes). */
  maxVarBytes: MIB,
} as const;

export const MANIFEST_BOUNDS = {
  /** The WebAssembly 32-bit maximum (4 GiB). */
  maxPages: 65_536,
  /** Ten minutes; policies may cap lower. */
  timeoutMs: 600_000,
  /** For every byte cap (input, output, HTTP response). */
  maxBytes: 64 * MIB,
  descriptionChars: 4096,
  titleChars: 256,
  paramDescriptionChars: 2048,
  templateChars: 16 * KIB,
  configValueChars: 64 * KIB,
  poolMax: 64,
  /** allowed_paths.<guest>.max_bytes: 16 GiB. */
  maxWriteBytes: 16 * 1024 * MIB,
  /** allowed_paths.<guest>.max_entries. */
  maxWriteEntries: 10_000_000,
  poolIdleMs: 3_600_000,
  /** Modules in module.link. */
  maxLinks: 16,
} as const;
