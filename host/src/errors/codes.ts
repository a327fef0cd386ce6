// Every code a toolgate error can carry, in one table keyed by the part of toolgate that raises it.
// An error class narrows its `code` to its part's list, so a code is added here or not at all.

export const ERROR_CODES_BY_PART = {
  /** A call's result (architecture.md §3): what `--json` prints, MCP carries and ToolFailure throws. */
  call: [
    'UNKNOWN_TOOL',
    'INVALID_ARGS',
    'DENIED',
    'GUARD_DENIED',
    'APPROVAL_DENIED',
    'BLOCKED',
    'TIMEOUT',
    'ABORTED',
    'ABORTED_BEFORE_DISPATCH',
    'TOOL_ERROR',
    'INVALID_OUTPUT',
    'OUTPUT_TOO_LARGE',
    'QUOTA_EXCEEDED',
    'LISTENER_ERROR',
    'RATE_LIMITED',
    'SANDBOX_ERROR',
  ],
  /** A tool definition refused by defineTool. */
  tool: ['INVALID_TOOL_DEFINITION'],
  /** A module refused at load. */
  sandboxLoad: [
    'BAD_MODULE',
    'WRONG_WORLD',
    'FORBIDDEN_IMPORT',
    'MEMORY_OVER_CAP',
    'TABLES_OVER_BUDGET',
    'MISSING_ENTRY',
    'BAD_ENTRY',
    'BAD_SPEC',
    'WORKER_MISSING',
  ],
  /**
   * Raised and caught inside the sandbox; none reaches a caller as itself (each becomes an errno, an
   * exit status, a failed HTTP outcome or a re-run in a worker).
   */
  sandbox: ['WASI_EXIT', 'WASI_ERRNO', 'RESPONSE_TOO_LARGE', 'UNKNOWN_INSTRUCTION', 'MOVE_TO_WORKER', 'ABI_BREACH'],
  /** A manifest (or a file it names) refused. */
  manifest: [
    'YAML_SYNTAX',
    'INVALID_MANIFEST',
    'READ_FAILED',
    'MODULE_MISSING',
    'MODULE_INVALID',
    'SHA256_MISMATCH',
    'PATH_INVALID',
    'DUPLICATE_TOOL',
    'DIR_MISSING',
    'SANDBOX_LOAD',
    'TEXT_CHANGED',
  ],
  /**
   * An approval request withdrawn from a channel: another channel answered first, or the client
   * that asked went away (its request closed, it cancelled, its stdin closed).
   */
  approval: ['ANSWERED_ELSEWHERE', 'CLIENT_GONE'],
  /** The replicas' shared state (`serve --state`) down or not answering: what needed it is refused. */
  sharedState: ['STATE_UNAVAILABLE'],
  /** A native plugin whose apply failed. */
  plugin: ['PLUGIN_APPLY_FAILED'],
  /** A policy set refused (file, entry, key path). */
  policy: ['POLICY_CONFIG'],
  /** A registry refusal. */
  registry: [
    'NOT_FOUND',
    'AUTH_REQUIRED',
    'DIGEST_MISMATCH',
    'BAD_SIGNATURE',
    'UNKNOWN_SIGNER',
    'UNSIGNED',
    'DOWNGRADE',
    'VERSION_CONFLICT',
    'CEILING_EXCEEDED',
    'CONSENT_REQUIRED',
    'CONSENT_DECLINED',
    'BAD_PACKAGE',
    'BAD_MANIFEST',
    'BAD_REFERENCE',
    'BAD_KEY',
    'BAD_CONFIG',
    'INSECURE_TRANSPORT',
    'NETWORK',
    'TOO_LARGE',
    'NOT_INSTALLED',
    'STORE_CORRUPT',
    'STORE_CHANGED',
    'TIMEOUT',
  ],
  /** The MCP and HTTP server: its refusals, and JSON-RPC errors by their meaning (RpcError). */
  server: [
    'INSECURE_BIND',
    'BODY_TOO_LARGE',
    'SERVER_CLOSING',
    'PARSE_ERROR',
    'INVALID_REQUEST',
    'METHOD_NOT_FOUND',
    'INVALID_PARAMS',
    'INTERNAL_ERROR',
    'SERVER_ERROR',
    'SESSION_NOT_FOUND',
  ],
  /** A mistake in how the command was invoked or configured (exit 2). */
  cli: ['USAGE'],
} as const satisfies Record<string, readonly string[]>;

export type ErrorPart = keyof typeof ERROR_CODES_BY_PART;
/** The codes of one part, e.g. `CodeOf<'registry'>`. */
export type CodeOf<P extends ErrorPart> = (typeof ERROR_CODES_BY_PART)[P][number];
/** Every code a toolgate error can carry: the one union. */
export type ToolgateErrorCode = CodeOf<ErrorPart>;

const ALL_CODES: ReadonlySet<string> = new Set(Object.values(ERROR_CODES_BY_PART).flat());

export function isToolgateErrorCode(code: unknown): code is ToolgateErrorCode {
  return typeof code === 'string' && ALL_CODES.has(code);
}
