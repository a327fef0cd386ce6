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

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  maxPages: 256,
  timeoutMs: 10_000,
  maxInputBytes: 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  maxHttpResponseBytes: 1024 * 1024,
  maxVarBytes: 1024 * 1024,
  maxLogBytes: 64 * 1024,
});

export function allocBudget(limits: SandboxLimits): number {
  return limits.maxAllocBytes ?? 4 * limits.maxOutputBytes + limits.maxInputBytes;
}
