// One call through the fixed stages of architecture.md §3. call() never rejects: every failure, including a
// broken listener, becomes an isError result with a stable code.
//
// Finer rules (docs/decisions.md, "Pipeline"):
// - Schema defaults are filled in before the arguments are frozen: execute, listeners and the audit
//   record all see the same complete arguments.
// - Stage-1 failures (UNKNOWN_TOOL, INVALID_ARGS, ABORTED_BEFORE_DISPATCH on an already-aborted
//   signal) skip stages 2-5; finalizeContent (when the tool is known) and observers still run.
// - A pre-execute listener may override what next() returned (middleware); the trail records who
//   decided. Guards are the layer no listener can override. A failure anywhere in the chain stands.
// - The caller cancelling during pre-execute or approval is ABORTED_BEFORE_DISPATCH.
// - The call's deadline (the tool's timeoutMs, deadline rules, the caller's signal) bounds every
//   stage from dispatch on, listeners and wrappers included; only the wait for a person is off it.
// - A value that arrives after the body's signal fired counts as aborted/timed out.
// - structuredContent is set only for JSON-object values; 'json' renders compact JSON.
// - post-execute is a sequential waterfall (no next()): each listener sees what the previous left.
// - meta = { callId, tool, decision: DecisionTrail, durationMs }.
import { randomUUID } from 'node:crypto';
import {
  deepFreeze,
  execIdentity,
  type ExecFields,
  type JsonObject,
  type Tool,
  type ToolRegistry,
  type ToolResult,
} from '../tool/index.js';
import type { CallContext } from './call.js';
import { CallClock, callBudget } from './clock.js';
import { policedClient } from './client-gate.js';
import { gate, newTrail } from './decide.js';
import { callerAborted, runExecute } from './execute.js';
import { jsonCopy } from './json-copy.js';
import { Hooks, type HookSnapshot } from './hooks.js';
import { failed, fromOutcome, toResult, type CallState } from './outcome.js';
import { runPostExecute } from './post.js';
import { copyContent, isContent } from './render.js';
import type { ApprovalService, CallOptions, CallRecord, Decision, DecisionTrail, PipelineLogger } from './types.js';
import { messageOf } from '../errors/index.js';
import type { Abortable } from '../signals/index.js';
import { tracer } from '../telemetry/index.js';
import { decisionAttributes } from './trace-spans.js';

export interface PipelineOptions {
  tools: ToolRegistry;
  hooks?: Hooks;
  approval?: ApprovalService;
  /** How long a person gets to answer an 'ask' (default 120 s). */
  approvalTimeoutMs?: number;
  /** An extra cap on each pre/post-execute listener; by default only the call's deadline bounds them. */
  listenerTimeoutMs?: number;
  logger?: PipelineLogger;
}

/** What `policy explain` prints: the decision a call would get, without running anything. */
export interface Explanation {
  tool: string;
  outcome: 'allow' | 'deny' | 'ask' | 'unknown-tool' | 'invalid-args';
  /** Why: the deny/ask reason, the guard's reason, or the argument error. */
  reason?: string;
  /** The stable code a real call would fail with (DENIED, GUARD_DENIED, LISTENER_ERROR...). */
  code?: string;
  /**
   * A note, never the outcome: an argument the sandbox will refuse should the tool act on it (a
   * URL outside allowed_hosts, a path outside every mount). The pipeline decides before the tool
   * runs and does not read arguments that way, so the outcome is what the pipeline decides.
   */
  sandbox?: string;
  trail: DecisionTrail;
}

/**
 * What a call has before dispatch: its id, its trail, the hooks it is pinned to, its meta, and when
 * it started (wall clock for the record, monotonic for its duration).
 */
interface CallStart {
  readonly callId: string;
  readonly trail: DecisionTrail;
  readonly hooks: HookSnapshot;
  readonly meta: () => JsonObject;
  readonly startedAt: number;
  readonly t0: number;
}

/** What a finished call's record is built from, beside its start: what was asked, and what was found. */
interface CallSeen {
  readonly name: string;
  readonly options: CallOptions;
  readonly traceId: string | undefined;
  /** The frozen, default-filled arguments; undefined when the call never got that far. */
  readonly args: Readonly<JsonObject> | undefined;
  readonly tool: Tool | undefined;
}

const silent: PipelineLogger = { warn() {}, error() {} };
/** Shared by calls made without a signal; it never aborts, so sharing it is safe. */
const NEVER_ABORTED = new AbortController().signal;

export class Pipeline {
  readonly tools: ToolRegistry;
  readonly hooks: Hooks;
  approval: ApprovalService | undefined;
  readonly #approvalTimeoutMs: number;
  readonly #listenerTimeoutMs: number | undefined;
  readonly #log: PipelineLogger;

  constructor(options: PipelineOptions) {
    this.tools = options.tools;
    this.hooks = options.hooks ?? new Hooks();
    this.approval = options.approval;
    this.#approvalTimeoutMs = options.approvalTimeoutMs ?? 120_000;
    this.#listenerTimeoutMs = options.listenerTimeoutMs;
    this.#log = options.logger ?? silent;
  }

  async call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const callId = options.callId ?? randomUUID();
    const hooks = this.hooks.snapshot();
    const trail = newTrail();
    const tool = options.operation === true ? this.tools.operation(name) : this.tools.get(name);
    // frozen as made: every meta ends in a frozen result, whose deepFreeze then skips it
    const meta = (): JsonObject =>
      Object.freeze({
        callId,
        tool: name,
        decision: jsonCopy(trail, true) as JsonObject,
        durationMs: Math.round((performance.now() - t0) * 1000) / 1000,
      });
    const started: CallStart = { callId, trail, hooks, meta, startedAt, t0 };
    let state: CallState;
    let frozenArgs: Readonly<JsonObject> | undefined;
    try {
      if (tool === undefined) {
        state = failed('UNKNOWN_TOOL', `unknown tool "${name}"`);
      } else {
        const checked = tool.checkArguments(args);
        if (!checked.ok) {
          state = failed('INVALID_ARGS', `invalid arguments for tool "${name}": ${checked.message}`);
        } else {
          frozenArgs = deepFreeze(checked.args);
          state = await this.#dispatch(tool, frozenArgs, options, started);
        }
        state = finalize(tool, state, meta);
      }
    } catch (err) {
      // Only a bug in the pipeline itself lands here; the caller still gets a result.
      this.#log.error({ err, callId, tool: name }, 'pipeline failure');
      state = failed('LISTENER_ERROR', `internal pipeline error: ${messageOf(err)}`);
    }
    const result = deepFreeze(toResult(state, meta()));
    const t = tracer();
    // The request's span (the active one) learns the pipeline's code of a failed call.
    if (t !== undefined && result.error !== undefined) t.annotate({ 'toolgate.error.code': result.error.code });
    this.#observe(result, started, { name, options, traceId: t?.traceId(), args: frozenArgs, tool });
    return result;
  }

  /**
   * tools/result: the observers with the call's record, then the tallies with its tool and duration.
   * The record is built only when an observer is there to read it: it freezes the trail and formats
   * a date, on every call, and the server's own counters are tallies (docs/decisions.md, "Server
   * CPU per call, ninth round").
   */
  #observe(result: ToolResult, started: CallStart, seen: CallSeen): void {
    const observers = started.hooks['tools/result'];
    const tallies = started.hooks.tallies;
    if (observers.length === 0 && tallies.length === 0) return;
    const durationMs = performance.now() - started.t0;
    if (observers.length > 0) {
      const record = callRecord(started, seen, durationMs);
      for (const { id, fn } of observers) {
        try {
          const r: unknown = fn(result, record);
          if (r instanceof Promise)
            r.catch((err: unknown) => this.#log.warn({ err, id }, 'tools/result observer rejected'));
        } catch (err) {
          this.#log.warn({ err, id, callId: started.callId }, `tools/result observer "${id}" threw; ignored`);
        }
      }
    }
    for (const { id, fn } of tallies) {
      try {
        fn(result, seen.name, durationMs);
      } catch (err) {
        this.#log.warn({ err, id, callId: started.callId }, `tools/result tally "${id}" threw; ignored`);
      }
    }
  }

  async #dispatch(
    tool: Tool,
    args: Readonly<JsonObject>,
    options: CallOptions,
    started: CallStart,
  ): Promise<CallState> {
    const { callId, trail, hooks, meta } = started;
    const caller: Abortable = options.cancel ?? options.signal ?? NEVER_ABORTED;
    const fields = identityFields(callId, tool.name, args, options);
    const base = Object.freeze(execIdentity(fields, caller));
    // The tool reaches its client only through the call's client-request guards.
    fields.client = policedClient(options.client, hooks.clientRequests, base, tool, trail);
    const exec = Object.freeze(execIdentity(fields, caller));
    if (caller.aborted)
      return failed('ABORTED_BEFORE_DISPATCH', `call to "${tool.name}" was cancelled before dispatch`);
    const clock = new CallClock(tool.name, caller, callBudget(exec, tool, hooks.deadlines));
    const call: CallContext = { exec, caller, tool, trail, clock, hooks };
    try {
      const decide = () =>
        gate(call, {
          dryRun: false,
          listenerTimeoutMs: this.#listenerTimeoutMs,
          approval: this.approval,
          approvalTimeoutMs: this.#approvalTimeoutMs,
          onApprovalWait: options.onApprovalWait,
        });
      // With tracing on, the decision is a span naming the entry that decided and the outcome.
      const t = tracer();
      const deciding =
        t === undefined
          ? decide()
          : t.child('policy decision', {}, async (span) => {
              const r = await decide();
              span.set(decisionAttributes(trail));
              return r;
            });
      // decided at once (no pre-execute listener, no person asked): no await, no microtask
      const refused = deciding instanceof Promise ? await deciding : deciding;
      let state: CallState;
      if (refused !== null) {
        state = refused;
      } else if (caller.aborted) {
        state = failed('ABORTED_BEFORE_DISPATCH', `call to "${tool.name}" was cancelled before dispatch`);
      } else {
        state = fromOutcome(tool, await runExecute(call));
        // A success the caller no longer wants is not a success; a specific failure says more.
        if (state.ok && caller.aborted) {
          const { error } = callerAborted(caller, tool.name);
          state = failed(error.code, error.message);
        }
      }
      // no post-execute listener: the state is the answer, with no async stage to wait on
      if (hooks['tools/post-execute'].length === 0) return state;
      return await runPostExecute(call, state, meta, { timeoutMs: this.#listenerTimeoutMs, log: this.#log });
    } finally {
      clock.release();
    }
  }

  /** The decision a call would get (pre-execute in dry-run mode, then guards); nothing executes. */
  async explain(name: string, args: unknown, options: Omit<CallOptions, 'signal'> = {}): Promise<Explanation> {
    const trail = newTrail();
    const tool = options.operation === true ? this.tools.operation(name) : this.tools.get(name);
    if (tool === undefined)
      return { tool: name, outcome: 'unknown-tool', reason: `unknown tool "${name}"`, code: 'UNKNOWN_TOOL', trail };
    const checked = tool.checkArguments(args);
    if (!checked.ok)
      return { tool: name, outcome: 'invalid-args', reason: checked.message, code: 'INVALID_ARGS', trail };
    const hooks = this.hooks.snapshot();
    const exec = Object.freeze({
      callId: options.callId ?? `explain-${randomUUID()}`,
      name,
      arguments: deepFreeze(checked.args),
      ...(options.agent !== undefined ? { agent: options.agent } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
      signal: NEVER_ABORTED,
    });
    const clock = new CallClock(tool.name, NEVER_ABORTED, callBudget(exec, tool, hooks.deadlines));
    let failure;
    try {
      failure = await gate(
        { exec, caller: NEVER_ABORTED, tool, trail, clock, hooks },
        {
          dryRun: true,
          listenerTimeoutMs: this.#listenerTimeoutMs,
          approval: undefined,
          approvalTimeoutMs: this.#approvalTimeoutMs,
        },
      );
    } finally {
      clock.release();
    }
    if (failure !== null)
      return { tool: name, outcome: 'deny', reason: failure.error.message, code: failure.error.code, trail };
    // Policy lets it through (or asks): that is the outcome a call gets. What the sandbox will refuse
    // if the tool makes the request is said beside it, since the pipeline itself never refuses it.
    const refused = tool.definition.sandboxRefusal?.(exec.arguments);
    const note = refused !== undefined ? { sandbox: refused } : {};
    const d: Decision | null = trail.decision;
    if (d?.kind === 'ask')
      return { tool: name, outcome: 'ask', reason: d.reason ?? `tool "${name}" needs approval`, ...note, trail };
    return { tool: name, outcome: 'allow', ...note, trail };
  }
}

/** Stage 6: the tool's finalizeContent, exactly once, on content only. */
function finalize(tool: Tool, state: CallState, meta: () => JsonObject): CallState {
  const fn = tool.definition.finalizeContent;
  if (fn === undefined) return state;
  try {
    const snapshot = deepFreeze(toResult({ ...state, content: copyContent(state.content) }, meta()));
    const out = fn.call(tool.definition, copyContent(state.content), snapshot);
    if (out === undefined) return state;
    if (!isContent(out))
      return failed(
        'TOOL_ERROR',
        `finalizeContent of tool "${tool.name}" returned something that is not content blocks`,
      );
    return { ...state, content: copyContent(out) };
  } catch (err) {
    return failed('TOOL_ERROR', `finalizeContent of tool "${tool.name}" threw: ${messageOf(err)}`);
  }
}

/**
 * What observers get beside the result. Built field by field rather than from conditional spreads
 * (each spread is an object made and copied, on every call); the keys keep their order.
 */
function callRecord(started: CallStart, seen: CallSeen, durationMs: number): CallRecord {
  const { callId, trail, startedAt } = started;
  const { options, traceId, args } = seen;
  // the required fields follow below, in the order the record has always had
  const r = { callId, tool: seen.name } as Mutable<CallRecord>;
  if (options.agent !== undefined) r.agent = options.agent;
  if (options.trace !== undefined) r.trace = Object.freeze({ ...options.trace });
  if (traceId !== undefined) r.traceId = traceId;
  if (args !== undefined) r.arguments = args;
  r.sensitiveArguments = seen.tool?.definition.sensitiveArguments === true;
  r.trail = deepFreeze(trail);
  r.startedAt = new Date(startedAt).toISOString();
  r.durationMs = durationMs;
  return Object.freeze(r);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A call's identity as guards and the body see it, without spreads (see callRecord); no client yet. */
function identityFields(callId: string, name: string, args: Readonly<JsonObject>, options: CallOptions): ExecFields {
  const id: ExecFields = { callId, name, arguments: args };
  if (options.agent !== undefined) id.agent = options.agent;
  if (options.token !== undefined) id.token = options.token;
  return id;
}
