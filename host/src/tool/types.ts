// The shared vocabulary of toolgate: every other folder speaks in these types.
import { ERROR_CODES_BY_PART, type CodeOf } from '../errors/index.js';

/** A JSON value. Canonical tool values, arguments and structured content are JSON. */
/**
 * An undo action: removes what a registration added. It may finish later (a tool's dispose());
 * ToolRegistry.register returns one, and a plugin's Scope runs them newest first.
 */
export type Disposer = () => void | Promise<void>;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON Schema document (draft 2020-12 subset); kept as plain JSON so it can be exported as is. */
export type JsonSchema = JsonObject;

/** Every MCP content kind, derived from its one zod schema (content.ts). */
export type { ContentBlock, EmbeddedResource } from './content.js';
import type { ContentBlock } from './content.js';

/**
 * Stable error codes of a call's result: callers (scripts, agents, tests) match on these, never on
 * messages. They are the `call` part of toolgate's one code table (errors/codes.ts).
 */
export const ERROR_CODES = ERROR_CODES_BY_PART.call;
export type ErrorCode = CodeOf<'call'>;

/** The result of one call: what `--json` prints and what MCP carries (architecture.md §3). */
export interface ToolResult {
  isError: boolean;
  content: ContentBlock[];
  structuredContent?: Json;
  error?: { code: ErrorCode; message: string };
  meta?: JsonObject;
}

/** How a tool's canonical value becomes model-facing content. */
export type OutputRender = 'json' | 'text' | 'mcp' | { template: string };

/** MCP tool annotations (hints only; policies may act on them). */
/** As a manifest's zod schema parses them: a key may be absent or undefined (exactOptionalPropertyTypes). */
export interface ToolAnnotations {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

/** What a tool may touch, as the host sees it. Policies ask by capability (network, fs-write, secrets). */
export interface ToolCapabilities {
  allowedHosts: string[];
  allowedPaths: Record<string, { host: string; mode: 'ro' | 'rw' }>;
  secrets: string[];
  maxPages?: number;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** What the tool may ask of the MCP client during a call (manifest capabilities.mcp). */
  mcp?: ClientFeature[];
}

/** A tool's task support (manifest `execution`); a transport without tasks ignores it. */
export interface ToolExecution {
  task: 'optional' | 'required';
  /** How long a task call first runs as an ordinary request (its first questions are an input round). */
  syncMs: number;
}

/**
 * The immutable identity of one call. Arguments are deep-frozen before any listener sees them.
 * Only tools/execute wrappers may replace `signal` (on their own copy); nothing may change the rest.
 */
export interface ExecIdentity {
  readonly callId: string;
  readonly name: string;
  readonly arguments: Readonly<JsonObject>;
  readonly agent?: string;
  readonly token?: string;
  readonly signal: AbortSignal;
  /**
   * The body's view of the call's deadline (architecture.md §3.3): the time left, in ms, on the
   * deadline `signal` carries (Infinity: none), from its one owner, the pipeline's clock. Once it
   * reads 0 the deadline has fired and `signal` is aborted. Absent before execute.
   */
  readonly remainingMs?: () => number;
  /** The client that made the call (logs, progress, elicitation, sampling), policy in front. */
  readonly client?: CallClient;
}

/** One parameter in the defineTool DSL; compiles to JSON Schema. */
export interface ParamSpec {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  required?: boolean | undefined;
  description?: string | undefined;
  enum?: Json[] | undefined;
  default?: Json | undefined;
  items?: ParamSpec | undefined;
  properties?: Record<string, ParamSpec> | undefined;
}
export type ParamsSpec = Record<string, ParamSpec>;

/**
 * What a tool author (native or via a manifest) hands to the registry. Only name, description,
 * the parameter schema, title, annotations and output schema are ever shown to a model.
 */
export interface ToolDefinition {
  name: string;
  description: string;
  title?: string;
  /** The DSL; exactly one of `parameters` and `inputSchema` may be given (neither = no arguments). */
  parameters?: ParamsSpec;
  inputSchema?: JsonSchema;
  /** Whether arguments not in the schema are accepted. Default false: unknown keys are refused. */
  allowUnknownArguments?: boolean;
  output?: { schema?: JsonSchema; render?: OutputRender };
  /** Returns the canonical value. Throw ToolFailure to report a specific code. */
  execute(args: Readonly<JsonObject>, exec: ExecIdentity): Promise<Json> | Json;
  /** Synchronous, content only; runs exactly once on every result. undefined keeps content. */
  finalizeContent?(content: ContentBlock[], result: Readonly<ToolResult>): ContentBlock[] | undefined;
  timeoutMs?: number;
  annotations?: ToolAnnotations;
  /** Host-only facts policies act on (never shown to a model). */
  capabilities?: ToolCapabilities;
  /** Audit records keep a digest of the arguments instead of the arguments. */
  sensitiveArguments?: boolean;
  /** Whether an MCP client may (optional) or must (required) run the tool as a task; absent = never. */
  execution?: ToolExecution;
  /**
   * What the sandbox will refuse of these arguments (a host outside allowed_hosts, a path outside
   * the mounts), for `policy explain`; undefined when nothing would be. Never runs the tool.
   */
  sandboxRefusal?(args: Readonly<JsonObject>): string | undefined;
  /** Releases what the tool holds (a sandbox pool) when it is unregistered. */
  dispose?(): Promise<void> | void;
  /** Live sandbox instances behind the tool, for metrics (WASM tools only). */
  instances?(): InstanceCounts;
}

/** A WASM tool's sandbox pool at one moment. */
export interface InstanceCounts {
  live: number;
  busy: number;
  idle: number;
  queued: number;
}

// ---- What a running tool may ask of the client (the MCP session) that made the call: log lines,
// progress, and requests the client answers (elicitation, sampling, roots). The transport provides the
// link; the pipeline puts policy in front of the requests before a tool sees it.

/** MCP log levels, least to most severe (RFC 5424 order, as notifications/message uses them). */
export const CLIENT_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type ClientLogLevel = (typeof CLIENT_LOG_LEVELS)[number];

/** What a tool may ask the client to do; a manifest lists the ones its module may use. */
export const CLIENT_FEATURES = ['logging', 'progress', 'elicitation', 'sampling', 'roots', 'notifications'] as const;
export type ClientFeature = (typeof CLIENT_FEATURES)[number];

/** The requests a client answers, each checked by policy first. */
export const CLIENT_REQUEST_KINDS = ['elicitation', 'sampling', 'roots'] as const satisfies readonly ClientFeature[];
export type ClientRequestKind = (typeof CLIENT_REQUEST_KINDS)[number];

export interface ClientRequest {
  readonly kind: ClientRequestKind;
  /**
   * elicitation/create, sampling/createMessage or roots/list params, as the tool sent them. An
   * optional top-level string `inputKey` names the question in a 2026-07-28 input round (it is
   * never sent to the client; see call-client.ts inputKeyOf).
   */
  readonly params: Readonly<JsonObject>;
  /**
   * Set by the host only, never from the module's bytes: an elicitation in URL mode whose URL the
   * host has checked against the manifest's allowed_hosts (a hyper-mcp create_elicitation). Without
   * it, elicitation is form mode only.
   */
  readonly urlChecked?: true;
}

/** The notifications a module may send its client besides logs and progress (capabilities.mcp notifications, elicitation). */
export const CLIENT_NOTIFICATIONS = [
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
] as const;
export type ClientNotification = (typeof CLIENT_NOTIFICATIONS)[number];

/**
 * Why a request got no answer from the client: DENIED (a policy), UNAVAILABLE (no client, or one
 * that did not declare the capability), INVALID_REQUEST (params the protocol refuses), FAILED (the
 * client answered with an error, or did not answer in time), PENDING (below).
 */
export type ClientRefusalCode =
  | 'DENIED'
  | 'UNAVAILABLE'
  | 'INVALID_REQUEST'
  | 'FAILED'
  /**
   * the question went to the client in a 2026-07-28 input round; the call is retried with the
   * answer (the tool should return; its output is discarded)
   */
  | 'PENDING';

export type ClientAnswer = { ok: true; result: JsonObject } | { ok: false; code: ClientRefusalCode; message: string };

/** The transport's side: one per call, bound to the session that made it. */
export interface CallClient {
  /** Sends notifications/message; false when the client's level filters it out (or no client). */
  log(level: ClientLogLevel, data: string, logger: string): Promise<boolean>;
  /** Sends notifications/progress; false when the call carried no progressToken. */
  progress(progress: number, total: number | undefined, message: string | undefined): Promise<boolean>;
  /** Sends the request and resolves with the client's answer; the signal cancels it. */
  request(req: ClientRequest, signal: AbortSignal, timeoutMs: number): Promise<ClientAnswer>;
  /**
   * Sends one of CLIENT_NOTIFICATIONS (params already checked by the sandbox); false when not sent
   * (no client, the revision has no such notification, or a resource nobody subscribed to). A
   * client without it sends none.
   */
  notify?(method: ClientNotification, params: Readonly<JsonObject>): Promise<boolean>;
}

// ---- What a module serves besides tools (hyper-mcp v2 modules: manifest/hyper-mcp.ts): its
// resources, resource templates, prompts and completions, as described at load. Every read, get and
// complete runs through the pipeline as a call of one of the plugin's operations (ToolRegistry
// operations: never listed as tools, never callable by tools/call).

/** One MCP resource, resource template or prompt as the module described it (validated JSON). */
export type ServedItem = JsonObject;

/**
 * The longest resource URI, in characters, anywhere one is named: a resource or template a module
 * describes, a URI it says was updated, and what a client reads, completes or subscribes to. One
 * bound, so a URI one method accepts no other refuses (docs/decisions.md, "One table per fact,
 * again").
 */
export const RESOURCE_URI_CHARS = 2048;

export interface ServedSurface {
  /** The manifest's name (the plugin). */
  readonly plugin: string;
  readonly resources: readonly ServedItem[];
  readonly resourceTemplates: readonly ServedItem[];
  readonly prompts: readonly ServedItem[];
  /** The operations (registry names) that serve resources/read, prompts/get and completion/complete. */
  readonly operations: { readonly read?: string; readonly get?: string; readonly complete?: string };
}
