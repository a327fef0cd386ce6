// The sandbox (DESIGN §4): checked and patched modules, isolated pooled instances, limits enforced by
// toolgate. Reached only through the tool model.
export type { SandboxLimits } from './limits.js';
export { DEFAULT_LIMITS } from './limits.js';
export type { SandboxExecution, SandboxToolSpec } from './spec.js';
export type { SandboxTool } from './tool.js';
export { loadSandboxTool } from './tool.js';
export { SandboxLoadError, type SandboxLoadErrorCode } from './load-error.js';
export type { PoolStats as SandboxStats } from './pool.js';
// The allowed_hosts grammar is the sandbox's; manifests validate and describe entries with it.
export { matchHost, parseHostPattern, type HostPattern } from './http/index.js';
