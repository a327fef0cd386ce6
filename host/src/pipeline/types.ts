// The pipeline's vocabulary: decisions, the listener type of every stage, outcomes and the trail.
import type { LazyAbort } from '../signals/index.js';
import type {
  CallClient,
  ClientRefusalCode,
  ClientRequest,
  ClientRequestKind,
  ContentBlock,
  ErrorCode,
  ExecIdentity,
  Json,
  JsonObject,
  Tool,
  ToolResult,
} from '../tool/index.js';

/** A deny may name a more precise code than DENIED (a rate limit says RATE_LIMITED). */
export type DenyCode = 'DENIED' | 'RATE_LIMITED';
export const DENY_CODES: readonly DenyCode[] = ['DENIED', 'RATE_LIMITED'];
export type Decision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string; code?: DenyCode }
  | { kind: 'ask'; reason?: string };

/** Facts a pre-execute listener may need beside the call itself. */
export interface PreExecuteInfo {
  readonly tool: Tool;
  /** True under `policy explain`: decide, but count nothing (rate limits) and touch nothing. */
  readonly dryRun: boolean;
}

/**
 * Waterfall: `next()` asks the rest of the chain (its end says allow). Returning without calling
 * next() decides for everyone after this listener. Returning nothing without next() is an error.
 */
export type PreExecuteListener = (
  exec: Readonly<ExecIdentity>,
  next: () => Promise<Decision>,
  info: PreExecuteInfo,
) => Decision | Promise<Decision>;

/**
 * A guard can only deny (a string is the reason, the code GUARD_DENIED; an object may say DENIED
 * instead, for a policy's red line); no listener order can turn that into allow.
 */
export type Guard = (exec: Readonly<ExecIdentity>, tool: Tool) => string | GuardDenial | undefined;
export interface GuardDenial {
  reason: string;
  code: DenyCode;
}

/**
 * Judges a running tool's request to its client (elicitation, sampling): a string denies it with
 * that reason (the tool gets a DENIED answer; the call goes on). There is no way to say allow.
 */
export type ClientRequestGuard = (
  req: Readonly<ClientRequest>,
  exec: Readonly<ExecIdentity>,
  tool: Tool,
) => string | undefined;

/**
 * A deadline rule: how many ms this call may take in all (undefined = no opinion). The shortest of
 * the rules, the tool's own timeout and the caller's signal bounds every stage of the call.
 */
export type DeadlineRule = (exec: Readonly<ExecIdentity>, tool: Tool) => number | undefined;

/** What the body, or a wrapper standing in for it, produced. */
export type ExecOutcome = { ok: true; value: Json } | { ok: false; error: { code: ErrorCode; message: string } };

/** The one thing a wrapper may change for the calls below it. */
export interface ExecReplace {
  signal?: AbortSignal;
}

/** Waterfall around the body. The caller's own signal is always fused into whatever is passed on. */
export type ExecuteWrapper = (
  exec: Readonly<ExecIdentity>,
  next: (replace?: ExecReplace) => Promise<ExecOutcome>,
  tool: Tool,
) => ExecOutcome | Promise<ExecOutcome>;

/** What `accept` takes: content alone (presentation) or a replacement canonical value. */
export type AcceptInput = ContentBlock[] | { content: ContentBlock[] } | { value: Json };

/** The post-execute view of one call; runs for successes, denials and failures alike. */
export interface PostExecuteCall {
  readonly exec: Readonly<ExecIdentity>;
  readonly tool: Tool;
  readonly trail: Readonly<DecisionTrail>;
  /** The result as it stands now (a frozen snapshot, updated after each accept/block). */
  readonly result: Readonly<ToolResult>;
  /** The canonical value; undefined on a failed result. */
  readonly value: Json | undefined;
  /** No argument: keep. Content: replace content only. {value}: re-validate and re-render. */
  accept(input?: AcceptInput): void;
  /** The call becomes isError BLOCKED with `feedback` as its content. */
  block(feedback: string): void;
}

/** Sequential waterfall: each listener sees the result the previous ones left. */
export type PostExecuteListener = (call: PostExecuteCall) => void | Promise<void>;

/** What an observer learns about a finished call (for audit, metrics). */
/** W3C trace context the client sent with the call (`_meta.traceparent` or the HTTP header). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

export interface CallRecord {
  readonly callId: string;
  readonly tool: string;
  readonly agent?: string;
  /** Ties the audit record to the agent's trace. */
  readonly trace?: TraceContext;
  /** The trace toolgate recorded the call in (tracing on): the client's trace id, or one toolgate started. */
  readonly traceId?: string;
  /** Validated, default-filled arguments; undefined when the call never got that far. */
  readonly arguments?: Readonly<JsonObject>;
  readonly sensitiveArguments: boolean;
  readonly trail: Readonly<DecisionTrail>;
  readonly startedAt: string;
  readonly durationMs: number;
}

/** Synchronous and read-only; a throw is logged and isolated. */
export type ResultObserver = (result: Readonly<ToolResult>, record: CallRecord) => void;

/**
 * An observer that reads only the tool's name and the call's duration beside the result (the
 * server's own call counters). Synchronous and read-only like a ResultObserver; with tallies alone
 * registered, a call builds no CallRecord (docs/decisions.md, "Server CPU per call, ninth round").
 */
export type CallTally = (result: Readonly<ToolResult>, tool: string, durationMs: number) => void;

/** Every stage and the type of its listeners. Adding a stage without its entry fails to compile. */
export interface StageListeners {
  'tools/pre-execute': PreExecuteListener;
  'tools/execute': ExecuteWrapper;
  'tools/post-execute': PostExecuteListener;
  'tools/result': ResultObserver;
}
export type Stage = keyof StageListeners;

export const STAGES = {
  'tools/pre-execute': { kind: 'waterfall', order: 2 },
  'tools/execute': { kind: 'waterfall', order: 4 },
  'tools/post-execute': { kind: 'waterfall', order: 5 },
  'tools/result': { kind: 'observer', order: 7 },
} as const satisfies Record<Stage, { kind: 'waterfall' | 'observer'; order: number }>;

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && Object.hasOwn(STAGES, value);
}

/** One listener's say in the pre-execute chain ('pass' = it returned what next() gave it). */
export interface TrailStep {
  id: string;
  kind: Decision['kind'] | 'pass' | 'error' | 'pending';
  reason?: string;
}

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** Who allowed, denied or asked, and why: the audit log and `policy explain` print this. */
export interface DecisionTrail {
  /** The decision the pre-execute chain returned; null when the call never reached it. */
  decision: Decision | null;
  /** The id of the listener whose decision stood, 'default' when none decided. */
  decidedBy: string | null;
  steps: TrailStep[];
  /** answeredBy: who answered, when the channel says (e.g. "ui: approval secret, 127.0.0.1"). */
  approval?: {
    outcome: ApprovalOutcome | 'timeout' | 'no-service' | 'error' | 'aborted';
    reason: string;
    answeredBy?: string;
  };
  guard?: { id: string; reason: string };
  /** What the tool asked of its client during the call, in order, and what became of it. */
  clientRequests?: {
    kind: ClientRequestKind;
    outcome: 'answered' | 'denied' | ClientRefusalCode;
    by?: string;
    reason?: string;
  }[];
  /** allowed: the body was dispatched (or would be, under explain). */
  final: 'allowed' | 'denied' | 'ask' | 'not-reached';
}

export interface ApprovalRequest {
  exec: Readonly<ExecIdentity>;
  reason: string;
  /** The listener id that asked. */
  decidedBy: string;
  /** When the pipeline stops waiting and denies (ISO time), so a person can be shown the time left. */
  expiresAt?: string;
}

/** An answer that also says who gave it; the decision trail (and so the audit log) records it. */
export interface ApprovalReply {
  outcome: ApprovalOutcome;
  answeredBy: string;
}

/** Asks a person. Only 'allowed-once' lets the call go on, and only this call. */
export interface ApprovalService {
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply>;
  /** How long a person gets for this request, when the service was configured with a limit. */
  timeoutFor?(req: ApprovalRequest): number | undefined;
}

/** pino-compatible subset, so tests and embedders can pass any logger. */
export interface PipelineLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The caller's cancellation as an owned abort whose AbortSignal is made only when something reads
   * `exec.signal` (a transport's client link, server/response-gone.ts); in place of `signal`.
   */
  cancel?: LazyAbort;
  agent?: string;
  trace?: TraceContext;
  token?: string;
  callId?: string;
  /** The client that made the call (MCP): the tool's logs, progress and requests go there. */
  client?: CallClient;
  /**
   * Told when the call starts waiting for a person (an 'ask'); the function it returns is called
   * when the wait ends. The transport keeps its client alive meanwhile and may abort the call's
   * signal to withdraw the ask (architecture.md §3).
   */
  onApprovalWait?: () => () => void;
  /** The name is a registry operation (a module's resource read, prompt or completion), not a tool. */
  operation?: boolean;
}
