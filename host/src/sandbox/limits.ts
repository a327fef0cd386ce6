/** The caps one tool runs under; every one is enforced by toolgate itself (architecture.md §4). */
export interface SandboxLimits {
  /** Hard cap on the module's linear memory, in 64 KiB pages. */
  maxPages: number;
  timeoutMs: number;
  maxInputBytes: number;
  maxOutputBytes: number;
  maxHttpResponseBytes: number;
  /** Total bytes of all Extism vars of one instance. */
  maxVarBytes: number;
  /** Log bytes one call may emit; the rest is dropped with one "N log lines dropped" line. */
  maxLogBytes: number;
  /** Extism host memory (alloc) one call may take. Default 4 x maxOutputBytes + maxInputBytes. */
  maxAllocBytes?: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;
/** Every byte cap a manifest may set (input, output, HTTP response, vars) stops here. */
const BYTE_CAP_MAX = 64 * MIB;

/**
 * Every limit a tool runs under, once (docs/decisions.md, "One table per fact"): its tight default,
 * what a manifest that says nothing gets (docs/authoring.md, "Limits"), and the largest value
 * anything may set, so an "impossible" value (a typo with three extra zeros) never loads. The
 * manifest's schema and defaults (manifest/defaults.ts) and the sandbox's spec check (spec.ts), its
 * pool and its HTTP gate all read this table.
 */
export const LIMITS = {
  /** 64 KiB pages: 16 MiB by default; at most the WebAssembly 32-bit maximum (4 GiB). */
  maxPages: { default: 256, max: 65_536 },
  /** The whole call; at most ten minutes (policies may cap lower). */
  timeoutMs: { default: 10_000, max: 600_000 },
  maxInputBytes: { default: MIB, max: BYTE_CAP_MAX },
  maxOutputBytes: { default: MIB, max: BYTE_CAP_MAX },
  maxHttpResponseBytes: { default: MIB, max: BYTE_CAP_MAX },
  maxVarBytes: { default: MIB, max: BYTE_CAP_MAX },
  /** Not a manifest key: the log bytes one call may emit. */
  maxLogBytes: { default: 64 * KIB, max: BYTE_CAP_MAX },
  /** Bytes one call may write to each rw mount (allowed_paths.<guest>.max_bytes): at most 16 GiB. */
  maxWriteBytes: { default: 64 * MIB, max: 16 * 1024 * MIB },
  /** Files and directories one call may create in each rw mount (allowed_paths.<guest>.max_entries). */
  maxWriteEntries: { default: 10_000, max: 10_000_000 },
  /** Instances of one tool that may run at once (pool.max). */
  poolMax: { default: 2, max: 64 },
  /** How long an idle instance is kept (pool.idle_ms). */
  poolIdleMs: { default: 60_000, max: 3_600_000 },
  /** Modules a tool links (module.link); none by default. */
  links: { default: 0, max: 16 },
} as const satisfies Record<string, { default: number; max: number }>;

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  maxPages: LIMITS.maxPages.default,
  timeoutMs: LIMITS.timeoutMs.default,
  maxInputBytes: LIMITS.maxInputBytes.default,
  maxOutputBytes: LIMITS.maxOutputBytes.default,
  maxHttpResponseBytes: LIMITS.maxHttpResponseBytes.default,
  maxVarBytes: LIMITS.maxVarBytes.default,
  maxLogBytes: LIMITS.maxLogBytes.default,
});

export function allocBudget(limits: SandboxLimits): number {
  return limits.maxAllocBytes ?? 4 * limits.maxOutputBytes + limits.maxInputBytes;
}
