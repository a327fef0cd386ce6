// MCP tasks seen from every replica (`serve --state`): the replica that runs a task writes a view
// of it to Redis at each change (status, questions, result, error; never the run's state), so
// tasks/get on another replica reads it there; tasks/cancel and tasks/update on another replica
// are sent to the running one as messages, and cancel also marks the view at once. Redis down:
// a new task is refused and another replica's task is -32000; tasks this replica runs still
// answer from its memory.
import type { InputRequests } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { messageOf } from '../errors/index.js';
import type { SharedState } from '../shared-state/index.js';
import { RpcError } from './rpc-error.js';

const taskKey = (id: string): string => `toolgate:task:${id}`;
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
export type TaskMessage = z.infer<typeof Message>;

const unavailable = (err: unknown): RpcError =>
  new RpcError(-32000, `the shared task state is unavailable, so another replica's task cannot be reached now (${messageOf(err)})`);

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
      const m = Message.safeParse(raw);
      if (m.success) fn(m.data);
    });
  }

  /** Writes the view (fire and forget: the running replica's memory stays the truth for it). */
  save(view: TaskView): Promise<void> {
    const keep = view.status === 'working' ? RUNNING_KEEP_MS : this.#ttlMs;
    return this.#state.command(['SET', taskKey(view.id), JSON.stringify(view), 'PX', String(keep)]).then(() => undefined);
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
    const v = View.safeParse(raw);
    if (!v.success || v.data.owner !== owner) return undefined;
    return v.data as TaskView;
  }

  /** Cancels another replica's task: its view says so now, and the replica running it stops it. */
  async cancel(view: TaskView): Promise<void> {
    try {
      if (view.status === 'working' || view.status === 'input_required') {
        const { inputRequests: _dropped, ...rest } = view;
        await this.#state.command(['SET', taskKey(view.id), JSON.stringify({ ...rest, status: 'cancelled', updatedAt: Date.now() }), 'PX', String(this.#ttlMs)]);
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
