// MCP tasks seen from every replica (`serve --state`): the replica that runs a task writes a view
// of it to Redis at each change (status, questions, result, error; never the run's state), so
// tasks/get on another replica reads it there; tasks/cancel and tasks/update on another replica
// are sent to the running one as messages, and cancel also marks the view at once. Redis down:
// a new task is refused and another replica's task is -32000; tasks this replica runs still
// answer from its memory. `--max-tasks` counts a principal's tasks on every replica: a sorted set
// per principal holds each task's id, scored by when it stops counting (a finished task its ttl
// after its last change), and one script drops the expired, counts and adds, so two replicas
// cannot both take the last place.
import type { InputRequests } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { messageOf } from '../errors/index.js';
import type { SharedState } from '../shared-state/index.js';
import { RpcError } from './rpc-error.js';

const taskKey = (id: string): string => `toolgate:task:${id}`;
const countKey = (owner: string): string => `toolgate:tasks:of:${owner}`;
const CHANNEL = 'toolgate:tasks';
/** A running task's view outlives its last change by this much (its own deadline ends it first). */
const RUNNING_KEEP_MS = 24 * 3600 * 1000;

/** What any replica may show of a task. */
export interface TaskView {
  readonly id: string;
  readonly owner: string;
  readonly createdAt: number;
  updatedAt: number;
  status: 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  inputRequests?: InputRequests;
}

/**
 * What the tasks read back from Redis, built on first use (docs/decisions.md, "Less code and fewer
 * schemas on serve's start").
 */
function buildTaskSchemas() {
  const View = z.object({
    id: z.string(),
    owner: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    status: z.enum(['working', 'input_required', 'completed', 'cancelled', 'failed']),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number(), message: z.string() }).optional(),
    inputRequests: z.record(z.string(), z.unknown()).optional(),
  });
  const Message = z.discriminatedUnion('type', [
    z.object({ type: z.literal('cancel'), id: z.string() }),
    z.object({ type: z.literal('update'), id: z.string(), responses: z.record(z.string(), z.unknown()) }),
  ]);
  return { View, Message };
}
let built: ReturnType<typeof buildTaskSchemas> | undefined;
const taskSchemas = (): ReturnType<typeof buildTaskSchemas> => (built ??= buildTaskSchemas());
export type TaskMessage = z.infer<ReturnType<typeof buildTaskSchemas>['Message']>;

// KEYS[1] the principal's set; ARGV: now, the cap (0: count only, add nothing), the id, its score,
// the set's own expiry (ms). Returns {1} when added, else {0, how many it holds}.
const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
if ARGV[2] == '0' then return {0, held} end
if held >= tonumber(ARGV[2]) then return {0, held} end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1}
`;

// Writes a task's view (KEYS[1], ARGV[1] for ARGV[2] ms) and moves its score in its principal's
// set (KEYS[2]) to ARGV[4] if it is there (XX: a task refused at the cap never joins).
const SAVE = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[3])
return 1
`;

/** The shared state is down: no task can be made (fail closed). */
export const noTaskState = (err?: unknown): RpcError =>
  new RpcError(
    -32000,
    `the shared task state (Redis) is unavailable, so no task can be made now; try again when it is back${err !== undefined ? ` (${messageOf(err)})` : ''}`,
  );

const unavailable = (err: unknown): RpcError =>
  new RpcError(
    -32000,
    `the shared task state is unavailable, so another replica's task cannot be reached now (${messageOf(err)})`,
  );

export class SharedTasks {
  readonly #state: SharedState;
  readonly #ttlMs: number;

  constructor(state: SharedState, ttlMs: number) {
    this.#state = state;
    this.#ttlMs = ttlMs;
  }

  get ready(): boolean {
    return this.#state.ready;
  }

  /** Messages for tasks this replica may run (cancel, answers); the function unsubscribes. */
  onMessage(fn: (m: TaskMessage) => void): () => void {
    return this.#state.subscribe(CHANNEL, (raw) => {
      const m = taskSchemas().Message.safeParse(raw);
      if (m.success) fn(m.data);
    });
  }

  /** Writes the view (fire and forget: the running replica's memory stays the truth for it). */
  save(view: TaskView): Promise<void> {
    const keep = view.status === 'working' ? RUNNING_KEEP_MS : this.#ttlMs;
    const counted = this.#countedUntil(view);
    return this.#state
      .script(
        SAVE,
        [taskKey(view.id), countKey(view.owner)],
        [JSON.stringify(view), String(keep), view.id, String(counted)],
      )
      .then(() => undefined);
  }

  /** When the task stops counting against its principal: its ttl after it ends; a running one later. */
  #countedUntil(view: Pick<TaskView, 'status' | 'updatedAt'>): number {
    return view.status === 'working' || view.status === 'input_required'
      ? view.updatedAt + RUNNING_KEEP_MS
      : view.updatedAt + this.#ttlMs;
  }

  /**
   * How many tasks `owner` holds on every replica; with `add`, that task joins them unless the
   * count is at `max` (then it is not added). Throws noTaskState when Redis is down.
   */
  async count(
    owner: string,
    max: number,
    add?: { id: string; now: number },
  ): Promise<{ added: boolean; held: number }> {
    const now = add?.now ?? Date.now();
    let got: unknown;
    try {
      const args =
        add !== undefined
          ? [
              String(now),
              String(max),
              add.id,
              String(this.#countedUntil({ status: 'working', updatedAt: now })),
              String(RUNNING_KEEP_MS + this.#ttlMs),
            ]
          : [String(now), '0', '', '0', '0'];
      got = await this.#state.script(RESERVE, [countKey(owner)], args);
    } catch (err) {
      throw noTaskState(err);
    }
    const [added, held] = Array.isArray(got) ? got : [];
    return { added: added === 1, held: typeof held === 'number' ? held : max };
  }

  /** Another replica's task, when it exists and is `owner`'s; -32000 when Redis is down. */
  async load(id: string, owner: string): Promise<TaskView | undefined> {
    let text: unknown;
    try {
      text = await this.#state.command(['GET', taskKey(id)]);
    } catch (err) {
      throw unavailable(err);
    }
    if (typeof text !== 'string') return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return undefined;
    }
    const v = taskSchemas().View.safeParse(raw);
    if (!v.success || v.data.owner !== owner) return undefined;
    return v.data as TaskView;
  }

  /** Cancels another replica's task: its view says so now, and the replica running it stops it. */
  async cancel(view: TaskView): Promise<void> {
    try {
      if (view.status === 'working' || view.status === 'input_required') {
        const { inputRequests: _dropped, ...rest } = view;
        await this.#state.command([
          'SET',
          taskKey(view.id),
          JSON.stringify({ ...rest, status: 'cancelled', updatedAt: Date.now() }),
          'PX',
          String(this.#ttlMs),
        ]);
      }
      await this.#state.publish(CHANNEL, { type: 'cancel', id: view.id });
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** Sends tasks/update's answers to the replica running the task. */
  async update(id: string, responses: Record<string, unknown>): Promise<void> {
    try {
      await this.#state.publish(CHANNEL, { type: 'update', id, responses });
    } catch (err) {
      throw unavailable(err);
    }
  }
}
