// The sidecar: MCP over stdio and Streamable HTTP, the plain HTTP API, and tool schema export.
export { parseBindAddress, isLoopback, type BindAddress } from './address.js';
export { SidecarCore, type PendingApprovals, type EndedApprovalInfo, type ChangeSource } from './core.js';
export { SessionApprovals } from './session-approvals.js';
export { ServerClosingError } from './call-tracker.js';
export { DEFAULT_TASK_LIMITS } from './task-store.js';
export { createMcpServer } from './mcp-server.js';
export { RoundKeys, SharedNonces } from './round-keys.js';
export { serveStdio, sinkWritable, type StdioSession } from './stdio.js';
export {
  serveHttp,
  InsecureBindError,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  defaultSessionsPerAddress,
} from './http-lazy.js';
export { reserveStdout } from './stdout-guard.js';
export { RpcError } from './rpc-error.js';
export type { HttpSidecar } from './http-server.js';
export { answererOf, type HttpMount, type MountRequest } from './http-mount.js';
export { endedMessage } from './approval-ended.js';
export type { CredentialGate, CredentialRefusal } from './credential-limit.js';
export {
  tokenMatches,
  presentsCredential,
  checkHost,
  checkOrigin,
  checkToken,
  allowedHostsFor,
  ConcurrencyLimit,
  type GuardConfig,
} from './http-guard.js';
export { newApprovalSecret, writeApprovalSecret, removeApprovalSecret } from './approval-secret.js';
export { ManifestTools, type ServedManifest } from './manifest-tools.js';
export type { MetricsSource } from './metrics.js';
export {
  exportTools,
  sanitizeName,
  isSchemaFormat,
  SCHEMA_FORMATS,
  STRICT_FORMATS,
  EXPORT_NAME_RE,
} from './schema-export.js';
