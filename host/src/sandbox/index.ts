// The sandbox (architecture.md §4): checked and patched modules, isolated pooled instances, limits enforced by
// toolgate. Reached only through the tool model.
export type { SandboxLimits } from './limits.js';
export { DEFAULT_LIMITS, LIMITS } from './limits.js';
export type { SandboxExecution, SandboxToolSpec } from './spec.js';
import type { SandboxToolSpec } from './spec.js';
import type { SandboxTool } from './tool.js';
export type { SandboxCallOptions, SandboxTool } from './tool.js';

/**
 * Checks and compiles the module and returns the tool. The sandbox's code (module preparation,
 * instances, pool, HTTP gate) loads on the first call of this, not when the door is imported: a
 * server lists its tools before any module is compiled, and start-up does not pay for it.
 */
export async function loadSandboxTool(spec: SandboxToolSpec): Promise<SandboxTool> {
  const tool = await import('./tool.js');
  return tool.loadSandboxTool(spec);
}

/** One step of loading the sandbox's code ahead of a first call: `name` says what it loads. */
export interface SandboxCodeStep {
  name: string;
  run(): Promise<void>;
}

/**
 * What a first call of any of these tools loads before its module is even read, as steps a server
 * runs in the idle turns after it answers initialize (docs/decisions.md, "First call of a fresh
 * server, warm home"): the sandbox's code, then, if one of them may run on the calling thread, the
 * Extism runner. Each step is one module graph loaded; a step that fails leaves the load to the
 * tool's own first call, which reports it.
 */
export function sandboxCodeSteps(specs: readonly SandboxToolSpec[]): SandboxCodeStep[] {
  if (specs.length === 0) return [];
  return [
    { name: 'sandbox', run: async () => void (await import('./tool.js')) },
    { name: 'runner', run: async () => (await import('./tool.js')).loadRunnerFor(specs) },
  ];
}
export { SandboxLoadError } from './load-error.js';
export { usePreparedModuleCache } from './prepared-cache-dir.js';
// The allowed_hosts grammar is the sandbox's; manifests validate and describe entries with it.
export { matchHost } from '../host-grammar/index.js';
export { tokenBucket } from './token-bucket.js';
