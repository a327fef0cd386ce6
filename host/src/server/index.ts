// The sidecar: MCP over stdio and Streamable HTTP, the plain HTTP API, and tool schema export.
export { parseBindAddress, isLoopback, formatAddress, clientKey, type BindAddress } from './address.js';
export { SidecarCore, type SidecarOptions, type ServerRuntime, type PendingApprovals, type EndedApprovalInfo, type ChangeSource } from './core.js';
export { SessionApprovals, type CallRoute, type PerCallRouter } from './session-approvals.js';
export { CallTracker, ServerClosingError } from './call-tracker.js';
export { DEFAULT_TASK_LIMITS, type TaskLimits } from './task-store.js';
export { createMcpServer, SERVER_NAME } from './mcp-server.js';
export { toCallToolResult } from './mcp-result.js';
export { RoundKeys, SharedNonces, MemoryNonces, APPROVAL_KEY, type UsedNonces } from './round-keys.js';
export { serveStdio, sinkWritable, type StdioSession } from './stdio.js';
export {
  serveHttp, InsecureBindError, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, defaultSessionsPerAddress,
} from './http-lazy.js';
export { reserveStdout, type ReservedStdout } from './stdout-guard.js';
export { SessionTable, type SessionHealth } from './session-table.js';
export { RpcError, RPC_MESSAGES } from './rpc-error.js';
export type { HttpOptions, HttpSidecar } from './http-server.js';
export { answererOf, mountFor, type HttpMount, type MountRequest } from './http-mount.js';
export { endedMessage } from './approval-ended.js';
export { CredentialLimit, type CredentialGate, type CredentialRefusal } from './credential-limit.js';
export { tokenMatches, clientAddress, presentsCredential, checkHost, checkOrigin, checkToken, checkApprover, isApprovalPath, allowedHostsFor, ConcurrencyLimit, type GuardConfig, type GuardFailure } from './http-guard.js';
export { newApprovalSecret, writeApprovalSecret, removeApprovalSecret, APPROVAL_SECRET_FILE } from './approval-secret.js';
export { ManifestTools, type ManifestToolsOptions, type ServedManifest } from './manifest-tools.js';
export { CallMetrics, type MetricsSource } from './metrics.js';
export { approvalForm, argumentSummary, outcomeOf } from './elicit.js';
export {
  exportTools, sanitizeName, mcpToolView, isSchemaFormat, SCHEMA_FORMATS, STRICT_FORMATS, EXPORT_NAME_RE,
  type SchemaFormat, type ExportedTools,
} from './schema-export.js';
