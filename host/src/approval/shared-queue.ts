// The approval queue of several replicas (`serve --state`): the pending asks and the ended records
// live in Redis, so /v1/approvals and /ui on any replica list and answer any of them. The call
// that asked waits on the replica that holds its request; an answer given elsewhere reaches it as
// a message (pub/sub), with a poll of the ended record every second as the fallback for a message
// lost while reconnecting. Claiming an answer is one script (take the pending entry, write the
// ended record), so of two answers on two replicas one wins and the other gets the same 409 as a
// single process gives. Redis down: a new ask is 'unavailable' (denied), the asks this replica
// holds are ended 'unavailable', and an answer is refused with StateUnavailable.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest } from '../pipeline/index.js';
import { StateUnavailable, type SharedState } from '../shared-state/index.js';
import { APPROVAL_OUTCOMES, approvalSummary, isApprovalOutcome } from './outcome.js';
import type { EndedApproval, PendingApproval, PendingQueue } from './queue.js';
import { abortSettlement } from './withdrawn.js';

const PENDING = 'toolgate:approvals:pending';
const endedKey = (id: string): string => `toolgate:approvals:ended:${id}`;
const CHANNEL = 'toolgate:approvals';
/** How long an ended record answers "already answered" (seconds). */
const ENDED_TTL_S = 3600;
const POLL_MS = 1000;
const EXPIRY_SLACK_MS = 250;

// Takes the pending entry ARGV[1] and writes its ended record, atomically; or returns what ended it.
const END = `
local item = redis.call('HGET', KEYS[1], ARGV[1])
if not item then
  local e = redis.call('GET', KEYS[2])
  if e then return {0, e} end
  return {0}
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return {1}
`;

const Ended = z.object({
  outcome: z.enum(APPROVAL_OUTCOMES),
  answeredBy: z.string().optional(),
  at: z.string(),
  expired: z.boolean(),
  withdrawn: z.string().optional(),
});
const Pending = z.looseObject({
  id: z.string(),
  callId: z.string(),
  tool: z.string(),
  agent: z.string().optional(),
  reason: z.string(),
  decidedBy: z.string(),
  arguments: z.unknown(),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
});
const Message = z.object({ type: z.enum(['changed', 'ended']), id: z.string().optional(), record: Ended.optional() });

const parseJson = (text: unknown): unknown => {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

type Settle = (o: ApprovalOutcome, by?: string, withdrawn?: string, remote?: boolean) => void;

export class SharedApprovalQueue implements PendingQueue {
  readonly #state: SharedState;
  readonly #logger: Logger | undefined;
  readonly #max: number;
  readonly #onlyWhileOpen: boolean;
  /** The asks this replica holds (their calls wait here). */
  readonly #held = new Map<string, { item: PendingApproval; settle: Settle }>();
  /** Every replica's pending asks, as last read. */
  #mirror: PendingApproval[] = [];
  readonly #ended = new Map<string, EndedApproval>();
  /** Ended records written while Redis was down: written when it is back. */
  readonly #unwritten = new Map<string, EndedApproval>();
  readonly #listeners = new Set<(pending: readonly PendingApproval[]) => void>();
  #openers = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(state: SharedState, options: { maxPending?: number; onlyWhileOpen?: boolean; logger?: Logger } = {}) {
    this.#state = state;
    this.#logger = options.logger;
    this.#max = options.maxPending ?? 1000;
    this.#onlyWhileOpen = options.onlyWhileOpen === true;
    state.subscribe(CHANNEL, (m) => this.#message(m));
    state.onStatus((ready) => (ready ? this.#back() : this.#down()));
  }

  openForAnswers(): () => void {
    this.#openers++;
    this.#tick();
    void this.#refresh();
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#openers--;
    };
  }

  get answerable(): boolean {
    return (!this.#onlyWhileOpen || this.#openers > 0) && this.#state.ready;
  }

  list(): PendingApproval[] {
    const now = Date.now();
    return this.#mirror.filter((p) => p.expiresAt === undefined || Date.parse(p.expiresAt) > now).map((p) => ({ ...p }));
  }

  ended(id: string): EndedApproval | undefined {
    const e = this.#ended.get(id);
    return e === undefined ? undefined : { ...e };
  }

  onChange(fn: (pending: readonly PendingApproval[]) => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  /** Answers any replica's pending ask; false when it is not pending (ended() then says how it ended). */
  async resolve(id: string, outcome: ApprovalOutcome, answeredBy?: string): Promise<boolean> {
    if (!isApprovalOutcome(outcome)) throw new TypeError(`unknown approval outcome ${JSON.stringify(outcome)}`);
    const record: EndedApproval = { outcome, ...(answeredBy !== undefined ? { answeredBy } : {}), at: new Date().toISOString(), expired: false };
    const held = this.#held.get(id);
    const claimed = await this.#end(id, record);
    if (claimed && held !== undefined) held.settle(outcome, answeredBy, undefined, true);
    void this.#refresh();
    return claimed;
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    if (signal.aborted) return Promise.resolve('cancelled');
    if (!this.answerable || this.#held.size >= this.#max) return Promise.resolve('unavailable');
    const id = randomUUID();
    const item: PendingApproval = {
      id,
      ...approvalSummary(req),
      createdAt: new Date().toISOString(),
      ...(req.expiresAt !== undefined ? { expiresAt: req.expiresAt } : {}),
    };
    return new Promise<ApprovalOutcome | ApprovalReply>((resolve) => {
      const settle: Settle = (o, by, withdrawn, remote) => {
        if (!this.#held.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        const record = this.#record(item, o, by, withdrawn);
        this.#ended.set(id, record);
        this.#trimEnded();
        if (remote !== true) void this.#end(id, record).catch((err: unknown) => this.#keepForLater(id, record, err));
        resolve(by === undefined ? o : { outcome: o, answeredBy: by });
      };
      const onAbort = (): void => {
        const end = abortSettlement(signal.reason);
        settle(end.outcome, end.answeredBy, end.withdrawn);
      };
      this.#held.set(id, { item, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.#tick();
      this.#publishPending(item).catch((err: unknown) => {
        this.#logger?.warn({ err: String(err), approval: id }, 'cannot queue the approval in the shared state; the call is denied');
        settle('unavailable', undefined, undefined, true);
      });
    });
  }

  async #publishPending(item: PendingApproval): Promise<void> {
    await this.#state.command(['HSET', PENDING, item.id, JSON.stringify({ ...item, replica: this.#state.replica })]);
    await this.#state.publish(CHANNEL, { type: 'changed' });
  }

  /** Takes the pending entry and writes `record`: true when this call ended it. */
  async #end(id: string, record: EndedApproval): Promise<boolean> {
    const message = JSON.stringify({ type: 'ended', id, record });
    const got = await this.#state.script(END, [PENDING, endedKey(id)], [id, JSON.stringify(record), String(ENDED_TTL_S), CHANNEL, message]);
    const [claimed, before] = Array.isArray(got) ? got : [];
    if (claimed === 1) {
      this.#ended.set(id, record);
      return true;
    }
    const prior = Ended.safeParse(parseJson(before));
    if (prior.success) this.#ended.set(id, stripUndefined(prior.data));
    return false;
  }

  #record(item: PendingApproval, outcome: ApprovalOutcome, by: string | undefined, withdrawn: string | undefined): EndedApproval {
    const now = Date.now();
    const expired = by === undefined && withdrawn === undefined && item.expiresAt !== undefined && now + EXPIRY_SLACK_MS >= Date.parse(item.expiresAt);
    return { outcome, ...(by !== undefined ? { answeredBy: by } : {}), ...(withdrawn !== undefined ? { withdrawn } : {}), at: new Date(now).toISOString(), expired };
  }

  #keepForLater(id: string, record: EndedApproval, err: unknown): void {
    if (!(err instanceof StateUnavailable)) this.#logger?.warn({ err: String(err), approval: id }, 'cannot end the approval in the shared state');
    this.#unwritten.set(id, record);
  }

  #message(raw: Record<string, unknown>): void {
    const m = Message.safeParse(raw);
    if (!m.success) return;
    if (m.data.type === 'ended' && m.data.id !== undefined && m.data.record !== undefined) {
      const record = stripUndefined(m.data.record);
      this.#ended.set(m.data.id, record);
      this.#trimEnded();
      // Answered on another replica: the call waiting here goes on with that answer.
      if (record.answeredBy !== undefined || record.outcome === 'allowed-once' || record.outcome === 'rejected') {
        this.#held.get(m.data.id)?.settle(record.outcome, record.answeredBy, undefined, true);
      }
    }
    void this.#refresh();
  }

  /** Every second while something is held or shown: answers a lost message missed, and the list. */
  #tick(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      if (this.#held.size === 0 && this.#openers === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
        return;
      }
      void this.#poll();
    }, POLL_MS);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (!this.#state.ready) return;
    try {
      for (const id of [...this.#held.keys()]) {
        const e = Ended.safeParse(parseJson(await this.#state.command(['GET', endedKey(id)])));
        if (e.success) this.#held.get(id)?.settle(e.data.outcome, e.data.answeredBy, undefined, true);
      }
      if (this.#openers > 0) await this.#refresh();
    } catch {
      // down: the status listener ends what is held
    }
  }

  async #refresh(): Promise<void> {
    let all: unknown;
    try {
      all = await this.#state.command(['HVALS', PENDING]);
    } catch {
      return;
    }
    if (!Array.isArray(all)) return;
    const items = all.flatMap((text) => {
      const p = Pending.safeParse(parseJson(text));
      return p.success ? [stripUndefined(p.data) as PendingApproval] : [];
    });
    items.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const before = JSON.stringify(this.#mirror);
    this.#mirror = items;
    if (JSON.stringify(items) !== before) this.#emit();
  }

  /** Redis went away: the asks held here cannot be answered, so they are denied now. */
  #down(): void {
    for (const { settle } of [...this.#held.values()]) settle('unavailable', undefined, 'the shared state (Redis) became unavailable');
    this.#mirror = [];
    this.#emit();
  }

  #back(): void {
    for (const [id, record] of [...this.#unwritten]) {
      this.#unwritten.delete(id);
      void this.#end(id, record).catch(() => this.#unwritten.set(id, record));
    }
    void this.#refresh();
  }

  #trimEnded(): void {
    while (this.#ended.size > 1000) {
      const oldest = this.#ended.keys().next().value;
      if (oldest === undefined) break;
      this.#ended.delete(oldest);
    }
  }

  #emit(): void {
    const snapshot = this.list();
    for (const fn of this.#listeners) {
      try {
        fn(snapshot);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** zod's optional keys come back as `undefined` values; the records here never carry those. */
/** The object without its undefined values: zod's optional keys parse as `T | undefined`, a record's are absent. */
function stripUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
