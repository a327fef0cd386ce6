// What every session and both transports share: the runtime's registry and pipeline, the approval
// routing, the calls in flight, metrics, and the list_changed broadcast to connected sessions.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { ApprovalOutcome, Pipeline } from '../pipeline/index.js';
import type { PluginHost } from '../plugin/index.js';
import type { ToolRegistry } from '../tool/index.js';
import { ASK_PROGRESS_MS } from './approval-wait.js';
import { RoundKeys } from './round-keys.js';
import { CallTracker } from './call-tracker.js';
import { CallMetrics, type MetricsSource } from './metrics.js';
import type { SessionApprovals } from './session-approvals.js';
import { SharedTasks } from './shared-tasks.js';
import { DEFAULT_TASK_LIMITS, TaskStore, type TaskLimits } from './task-store.js';
import type { SharedState } from '../shared-state/index.js';
import { messageOf } from '../errors/index.js';

/** The part of the CLI's Runtime the server needs (kept structural so server does not import cli). */
export interface ServerRuntime {
  readonly host: PluginHost;
  readonly tools: ToolRegistry;
  readonly pipeline: Pipeline;
  readonly logger: Logger;
}

/** Pending approvals a person answers over HTTP (the approval door's ApprovalQueue fits this). */
export interface PendingApprovals {
  /** JSON-serializable records, each with an `id`. */
  list(): readonly unknown[];
  /** false when no pending approval has this id. `answeredBy` goes to the audit log. */
  resolve(id: string, outcome: ApprovalOutcome, answeredBy?: string): boolean | Promise<boolean>;
  /** How an id that is no longer pending ended (answered, by whom, or expired), while remembered. */
  ended?(id: string): EndedApprovalInfo | undefined;
  /** Called whenever the pending list changes; the function unsubscribes. */
  onChange?(fn: () => void): () => void;
  /** Says someone can answer now (the HTTP server is up); the function says they no longer can. */
  openForAnswers?(): () => void;
}

export interface EndedApprovalInfo {
  outcome: ApprovalOutcome;
  answeredBy?: string;
  at: string;
  expired: boolean;
  /** Why it was withdrawn unanswered (the client that asked went away). */
  withdrawn?: string;
}

/** Anything that says "the policy set changed" (the policy engine's reload events). */
export type ChangeSource = (listener: () => void) => () => void;

export interface SidecarOptions {
  runtime: ServerRuntime;
  /** The ApprovalService given to createRuntime (so the pipeline routes asks back here). */
  approvals: SessionApprovals;
  version?: string;
  /** How long an elicitation may wait for the person. Default 120 s. */
  approvalTimeoutMs?: number;
  /** How often a call waiting for a person sends its client progress (default 15 s; tests use less). */
  askProgressMs?: number;
  metrics?: MetricsSource;
  approvalQueue?: PendingApprovals;
  policyChanges?: ChangeSource;
  /** Coalesces bursts of registry changes into one notification. Default 50 ms. */
  listChangedDebounceMs?: number;
  /** Called after each tools/list answer is built (serve defers start-up work until the first). */
  onToolsListed?: () => void;
  /**
   * Called once a stdio client's initialize request is answered: the turns until its next request
   * arrives are idle (serve loads the sandbox's code in them).
   */
  onInitialized?: () => void;
  /** Names the policy set in force now; a multi round-trip state is good only under the same one. */
  policySetId?: () => string;
  /** Signs 2026-07-28 input-round states (default: a key of this process only). */
  roundKeys?: RoundKeys;
  /** How long tasks are kept and how many a principal may hold (task-store.ts has the defaults). */
  taskLimits?: Partial<TaskLimits>;
  /** The replicas' shared state (`serve --state`): tasks are visible and cancellable from each. */
  state?: SharedState;
}

export class SidecarCore {
  readonly tools: ToolRegistry;
  readonly pipeline: Pipeline;
  readonly logger: Logger;
  readonly approvals: SessionApprovals;
  readonly calls = new CallTracker();
  readonly metrics: MetricsSource;
  readonly approvalQueue: PendingApprovals | undefined;
  readonly version: string;
  readonly approvalTimeoutMs: number;
  readonly askProgressMs: number;
  readonly onToolsListed: () => void;
  readonly onInitialized: () => void;
  readonly policySetId: () => string;
  readonly roundKeys: RoundKeys;
  /** 2026-07-28 tasks, shared by every request (a task outlives the request that made it). */
  readonly tasks: TaskStore;
  readonly #servers = new Set<Server>();
  readonly #listeners = new Set<() => void>();
  readonly #undo: (() => void)[] = [];
  readonly #debounceMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SidecarOptions) {
    const { runtime } = options;
    this.tools = runtime.tools;
    this.pipeline = runtime.pipeline;
    this.logger = runtime.logger;
    this.approvals = options.approvals;
    this.approvalQueue = options.approvalQueue;
    this.version = options.version ?? '0.0.0';
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? 120_000;
    this.askProgressMs = options.askProgressMs ?? ASK_PROGRESS_MS;
    this.#debounceMs = options.listChangedDebounceMs ?? 50;
    this.onToolsListed = options.onToolsListed ?? (() => {});
    this.onInitialized = options.onInitialized ?? (() => {});
    this.policySetId = options.policySetId ?? (() => 'default');
    this.roundKeys = options.roundKeys ?? RoundKeys.ephemeral();
    this.tasks = newTaskStore(options, runtime.logger);
    if (options.metrics !== undefined) {
      this.metrics = options.metrics;
    } else {
      const own = new CallMetrics();
      own.gauges.set('toolgate_calls_in_flight', { help: 'Tool calls running now.', read: () => this.calls.inFlight });
      own.gauges.set('toolgate_mcp_sessions', { help: 'Connected MCP sessions.', read: () => this.#servers.size });
      // a tally, not a tools/result observer: it reads the tool and the duration only, and with no
      // observer a call builds no record (docs/decisions.md, "Server CPU per call, ninth round")
      const off = runtime.host.hooks.tally('server-metrics', (result, tool, durationMs) =>
        own.observe(result, tool, durationMs),
      );
      this.#undo.push(() => off());
      this.metrics = own;
    }
    this.#undo.push(this.tools.subscribe(() => this.toolsChanged()));
    if (options.policyChanges !== undefined) this.#undo.push(options.policyChanges(() => this.toolsChanged()));
  }

  /** A connected session; it gets list_changed until the returned function runs. */
  attach(server: Server): () => void {
    this.#servers.add(server);
    return () => {
      this.#servers.delete(server);
    };
  }

  /** Told (debounced) whenever the tool list changes: 2026-07-28 listen streams (modern-http.ts). */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  get sessions(): number {
    return this.#servers.size;
  }

  /** Debounced: a folder of manifests changing at once sends one notification, not twenty. */
  toolsChanged(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      for (const listener of this.#listeners) listener();
      for (const server of this.#servers) {
        server
          .sendToolListChanged()
          .catch((err: unknown) => this.logger.debug({ err }, 'tools/list_changed not delivered'));
      }
    }, this.#debounceMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    for (const undo of this.#undo.splice(0)) undo();
    this.#servers.clear();
    this.tasks.close();
  }
}

/** This process's tasks, seen from every replica when the server shares state. */
function newTaskStore(options: SidecarOptions, logger: Logger): TaskStore {
  if (options.state === undefined) return new TaskStore(options.taskLimits);
  const ttlMs = options.taskLimits?.ttlMs ?? DEFAULT_TASK_LIMITS.ttlMs;
  return new TaskStore(options.taskLimits, new SharedTasks(options.state, ttlMs), (err, task) =>
    logger.warn(
      { err: messageOf(err), taskId: task.id },
      'cannot write the task to the shared state; other replicas see it as it was',
    ),
  );
}
