// The MCP Tasks extension's tasks (docs/mcp.md, "Tasks"): what each one is doing, what it answered,
// and whose it is. In the memory of the serving process, bounded three ways: a task is dropped
// `ttlMs` after its last change unless it is running (a running call is bounded by its own
// deadline); a principal holds at most `maxPerPrincipal` tasks, finished ones included until they
// expire; and the results a principal's tasks keep add up to at most `maxResultBytes`.
import { randomUUID } from 'node:crypto';
import type { InputRequests } from '@modelcontextprotocol/server';
import type { RoundPrincipal, RoundState } from './input-rounds.js';
import type { ClientEnvelope } from './modern-envelope.js';
import { RpcError } from './rpc-error.js';
import { noTaskState, type SharedTasks, type TaskView } from './shared-tasks.js';
import type { TraceContext } from '../pipeline/index.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

export interface TaskLimits {
  /** How long a finished (or waiting) task is kept after its last change. */
  ttlMs: number;
  /** What a client is told about how often to poll tasks/get. */
  pollIntervalMs: number;
  maxPerPrincipal: number;
  /** The stored results of one principal's tasks, in bytes of JSON. */
  maxResultBytes: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = {
  ttlMs: 600_000,
  pollIntervalMs: 500,
  maxPerPrincipal: 64,
  maxResultBytes: 8 * 1024 * 1024,
};

/** What the task runs: the call as the creating request made it. */
export interface TaskCallSpec {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly envelope: ClientEnvelope;
  /** The creating request's trace context: every run of the task joins that trace. */
  readonly trace?: TraceContext;
}

export interface Task {
  readonly id: string;
  readonly owner: string;
  readonly call: TaskCallSpec;
  readonly createdAt: number;
  readonly stop: AbortController;
  updatedAt: number;
  status: TaskStatus;
  result?: Record<string, unknown>;
  resultBytes: number;
  error?: { code: number; message: string };
  /** While input_required: the questions still unanswered, and the run's state to resume. */
  inputRequests?: InputRequests;
  payload?: RoundState;
  /** Answers received so far for the open questions (the run resumes when every one is in). */
  answers: Record<string, unknown>;
}

const TERMINAL: readonly TaskStatus[] = ['completed', 'cancelled', 'failed'];
export const isTerminal = (t: Task): boolean => TERMINAL.includes(t.status);

/** What any replica may show of a task (the view written to the shared state). */
export function viewOf(t: Task): TaskView {
  return {
    id: t.id,
    owner: t.owner,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    status: t.status,
    ...(t.result !== undefined ? { result: t.result } : {}),
    ...(t.error !== undefined ? { error: t.error } : {}),
    ...(t.inputRequests !== undefined ? { inputRequests: t.inputRequests } : {}),
  };
}

/**
 * Whom a principal's tasks belong to: its `taskOwner` when the server knows the client more narrowly
 * (an address, a stdio connection), else its id (a token's digest). Another owner's task is as unknown as a missing one.
 */
export function taskOwnerOf(principal: RoundPrincipal): string {
  return principal.taskOwner ?? principal.id;
}

export class TaskStore {
  readonly limits: TaskLimits;
  readonly #tasks = new Map<string, Task>();
  /** Other replicas' view of these tasks (`serve --state`); undefined keeps tasks in this process only. */
  readonly shared: SharedTasks | undefined;
  readonly #onSaveError: (err: unknown, task: Task) => void;
  /** Answers tasks/update sent from another replica (set by the task methods). */
  onRemoteUpdate: (task: Task, responses: Record<string, unknown>) => void = () => {};
  #unfollow: () => void = () => {};

  constructor(
    limits: Partial<TaskLimits> = {},
    shared?: SharedTasks,
    onSaveError: (err: unknown, task: Task) => void = () => {},
  ) {
    this.limits = { ...DEFAULT_TASK_LIMITS, ...limits };
    this.shared = shared;
    this.#onSaveError = onSaveError;
    if (shared !== undefined) {
      this.#unfollow = shared.onMessage((m) => {
        const task = this.#tasks.get(m.id);
        if (task === undefined) return;
        if (m.type === 'cancel') this.cancel(task);
        else this.onRemoteUpdate(task, m.responses);
      });
    }
  }

  /** Tells the other replicas what the task is now. */
  #changed(task: Task): void {
    this.shared?.save(viewOf(task)).catch((err: unknown) => this.#onSaveError(err, task));
  }

  /**
   * Throws -32000 when `owner` is at its cap (checked before a call starts, and at create): a JSON-RPC
   * error, since no task exists to report it in. With shared state the count is every replica's.
   */
  async assertRoom(owner: string): Promise<void> {
    // With shared state the shared count speaks first: while Redis is down (even before its client
    // has noticed) the refusal says so, not this replica's own partial count.
    if (this.shared !== undefined) this.#assertHeld((await this.shared.count(owner, this.limits.maxPerPrincipal)).held);
    this.#assertLocalRoom(owner);
  }

  #assertLocalRoom(owner: string): void {
    this.sweep();
    if (this.shared !== undefined && !this.shared.ready) throw noTaskState();
    this.#assertHeld([...this.#tasks.values()].filter((t) => t.owner === owner).length);
  }

  #assertHeld(held: number): void {
    if (held >= this.limits.maxPerPrincipal) {
      throw new RpcError(
        -32000,
        `too many tasks: this client holds ${held} (the limit is ${this.limits.maxPerPrincipal}); finished tasks count until they expire, ${this.limits.ttlMs} ms after they end`,
      );
    }
  }

  /**
   * A new working task for `owner`, stopped through `stop`; throws -32000 at the cap. With shared
   * state its place is taken in the same atomic step that counts (SharedTasks.count).
   */
  async create(owner: string, stop: AbortController, call: TaskCallSpec): Promise<Task> {
    this.#assertLocalRoom(owner);
    const now = Date.now();
    const id = randomUUID();
    if (this.shared !== undefined) {
      const { added, held } = await this.shared.count(owner, this.limits.maxPerPrincipal, { id, now });
      if (!added) this.#assertHeld(Math.max(held, this.limits.maxPerPrincipal));
    }
    const task: Task = {
      id,
      owner,
      call,
      createdAt: now,
      updatedAt: now,
      status: 'working',
      stop,
      resultBytes: 0,
      answers: {},
    };
    this.#tasks.set(task.id, task);
    this.#changed(task);
    return task;
  }

  /** The task, if it exists, has not expired and is `owner`'s; another's is as unknown as a missing one. */
  get(id: string, owner: string): Task | undefined {
    this.sweep();
    const task = this.#tasks.get(id);
    return task !== undefined && task.owner === owner ? task : undefined;
  }

  /** Terminal with the call's result, unless it no longer fits the principal's result budget. */
  complete(task: Task, result: Record<string, unknown>): void {
    if (isTerminal(task)) return;
    const bytes = Buffer.byteLength(JSON.stringify(result));
    const used = [...this.#tasks.values()].filter((t) => t.owner === task.owner).reduce((n, t) => n + t.resultBytes, 0);
    if (used + bytes > this.limits.maxResultBytes) {
      this.fail(
        task,
        -32000,
        `the result (${bytes} bytes) does not fit the ${this.limits.maxResultBytes} bytes this client's tasks may keep (${used} in use); it was dropped`,
      );
      return;
    }
    task.result = result;
    task.resultBytes = bytes;
    this.#settle(task, 'completed');
  }

  fail(task: Task, code: number, message: string): void {
    if (isTerminal(task)) return;
    task.error = { code, message };
    this.#settle(task, 'failed');
  }

  /** Cancelled, and its run stopped (the instance is torn down as any aborted call's is). */
  cancel(task: Task): void {
    if (isTerminal(task)) return;
    this.#settle(task, 'cancelled');
    task.stop.abort(new Error('the task was cancelled'));
  }

  /** Waiting for the client: these questions, and the state the next run resumes from. */
  ask(task: Task, inputRequests: InputRequests, payload: RoundState): void {
    if (isTerminal(task)) return;
    task.inputRequests = inputRequests;
    task.payload = payload;
    task.answers = {};
    task.status = 'input_required';
    task.updatedAt = Date.now();
    this.#changed(task);
  }

  /** Running again (after every open question got its answer). */
  resume(task: Task): void {
    delete task.inputRequests;
    task.status = 'working';
    task.updatedAt = Date.now();
    this.#changed(task);
  }

  #settle(task: Task, status: TaskStatus): void {
    delete task.inputRequests;
    delete task.payload;
    task.answers = {};
    task.status = status;
    task.updatedAt = Date.now();
    this.#changed(task);
  }

  /** Drops what expired: anything but a running task, ttlMs after its last change. */
  sweep(now = Date.now()): void {
    for (const [id, t] of this.#tasks)
      if (t.status !== 'working' && t.updatedAt + this.limits.ttlMs <= now) this.#tasks.delete(id);
  }

  /** Stops every running task (the server is closing). */
  close(): void {
    this.#unfollow();
    for (const t of this.#tasks.values()) if (!isTerminal(t)) t.stop.abort(new Error('server shutting down'));
    this.#tasks.clear();
  }
}
