// The approval queue of several replicas (`serve --state`): the pending asks and the ended records
// live in Redis, so /v1/approvals and /ui on any replica list and answer any of them. The call
// that asked waits on the replica that holds its request; an answer given elsewhere reaches it as
// a message (pub/sub), with a poll of the ended record every second as the fallback for a message
// lost while reconnecting. Claiming an answer is one script (take the pending entry, write the
// ended record), so of two answers on two replicas one wins and the other gets the same 409 as a
// single process gives. Redis down: a new ask is 'unavailable' (denied), the asks this replica
// holds are ended 'unavailable', and an answer is refused with StateUnavailable.
// A replica that dies (SIGKILL, a lost node) cannot end its asks: each ask carries its replica's
// lease, a key the replica renews every second while it holds asks. Listing, or answering, an ask
// whose lease lapsed ends it as withdrawn (in the same script that claims an answer), so it leaves
// every replica's list and a late answer gets the 409 of any ended ask.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest } from '../pipeline/index.js';
import { StateUnavailable, type SharedState } from '../shared-state/index.js';
import { APPROVAL_OUTCOMES } from './outcome.js';
import {
  Answerers,
  checkedOutcome,
  emitPending,
  endedRecord,
  pendingItem,
  rememberEnded,
  type EndedApproval,
  type PendingApproval,
} from './pending.js';
import type { PendingQueue } from './queue.js';
import { abortSettlement } from './withdrawn.js';

const PENDING = 'toolgate:approvals:pending';
const endedKey = (id: string): string => `toolgate:approvals:ended:${id}`;
const CHANNEL = 'toolgate:approvals';
/** A replica's lease on the asks it holds: renewed every POLL_MS, lapsed LEASE_MS after its last renewal. */
const LEASE_PREFIX = 'toolgate:approvals:lease:';
const LEASE_MS = 5000;
const LAPSED = 'withdrawn because the replica that held it stopped (its lease lapsed)';
/** How long an ended record answers "already answered" (seconds). */
const ENDED_TTL_S = 3600;
const POLL_MS = 1000;

// Takes the pending entry ARGV[1] and writes its ended record, atomically; or returns what ended it.
// With a lease prefix (ARGV[6]), an entry whose replica's lease lapsed is ended as withdrawn
// (record ARGV[7], message ARGV[8]) instead of claimed: nobody waits for its answer any more. With
// ARGV[9] = '1' (a sweep of lapsed leases) a leased entry is left alone.
const END = `
local item = redis.call('HGET', KEYS[1], ARGV[1])
if not item then
  local e = redis.call('GET', KEYS[2])
  if e then return {0, e} end
  return {0}
end
if ARGV[6] ~= '' then
  local ok, entry = pcall(cjson.decode, item)
  local replica = ok and type(entry) == 'table' and entry['replica'] or nil
  if type(replica) == 'string' and redis.call('EXISTS', ARGV[6] .. replica) == 0 then
    redis.call('HDEL', KEYS[1], ARGV[1])
    redis.call('SET', KEYS[2], ARGV[7], 'EX', ARGV[3])
    redis.call('PUBLISH', ARGV[4], ARGV[8])
    return {0, ARGV[7]}
  end
  if ARGV[9] == '1' then return {0} end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return {1}
`;

/**
 * What the queue reads back from Redis, built on first use: a server without Redis never reads
 * (docs/decisions.md, "Less code and fewer schemas on serve's start").
 */
function buildRecordSchemas() {
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
    replica: z.string().optional(),
  });
  const Message = z.object({ type: z.enum(['changed', 'ended']), id: z.string().optional(), record: Ended.optional() });
  return { Ended, Pending, Message };
}
let built: ReturnType<typeof buildRecordSchemas> | undefined;
const records = (): ReturnType<typeof buildRecordSchemas> => (built ??= buildRecordSchemas());
type Listed = PendingApproval & { replica?: string };

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
  readonly #answerers: Answerers;
  /** The asks this replica holds (their calls wait here). */
  readonly #held = new Map<string, { item: PendingApproval; settle: Settle }>();
  /** Every replica's pending asks, as last read. */
  #mirror: Listed[] = [];
  readonly #ended = new Map<string, EndedApproval>();
  /** Ended records written while Redis was down: written when it is back. */
  readonly #unwritten = new Map<string, EndedApproval>();
  readonly #listeners = new Set<(pending: readonly PendingApproval[]) => void>();
  #timer: NodeJS.Timeout | undefined;

  constructor(state: SharedState, options: { maxPending?: number; onlyWhileOpen?: boolean; logger?: Logger } = {}) {
    this.#state = state;
    this.#logger = options.logger;
    this.#max = options.maxPending ?? 1000;
    this.#answerers = new Answerers(options.onlyWhileOpen === true);
    state.subscribe(CHANNEL, (m) => this.#message(m));
    state.onStatus((ready) => (ready ? this.#back() : this.#down()));
  }

  openForAnswers(): () => void {
    const close = this.#answerers.open();
    this.#tick();
    void this.#refresh();
    return close;
  }

  get answerable(): boolean {
    return this.#answerers.answerable && this.#state.ready;
  }

  list(): PendingApproval[] {
    const now = Date.now();
    return this.#mirror
      .filter((p) => p.expiresAt === undefined || Date.parse(p.expiresAt) > now)
      .map((p) => ({ ...p }));
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
    const record: EndedApproval = {
      outcome: checkedOutcome(outcome),
      ...(answeredBy !== undefined ? { answeredBy } : {}),
      at: new Date().toISOString(),
      expired: false,
    };
    const held = this.#held.get(id);
    const claimed = await this.#end(id, record, 'answer');
    if (claimed && held !== undefined) held.settle(outcome, answeredBy, undefined, true);
    void this.#refresh();
    return claimed;
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    if (signal.aborted) return Promise.resolve('cancelled');
    if (!this.answerable || this.#held.size >= this.#max) return Promise.resolve('unavailable');
    const id = randomUUID();
    const item = pendingItem(id, req);
    return new Promise<ApprovalOutcome | ApprovalReply>((resolve) => {
      const settle: Settle = (o, by, withdrawn, remote) => {
        if (!this.#held.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        const record = endedRecord(item, o, by, withdrawn);
        rememberEnded(this.#ended, id, record);
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
        this.#logger?.warn(
          { err: String(err), approval: id },
          'cannot queue the approval in the shared state; the call is denied',
        );
        settle('unavailable', undefined, undefined, true);
      });
    });
  }

  async #publishPending(item: PendingApproval): Promise<void> {
    await this.#renewLease();
    await this.#state.command(['HSET', PENDING, item.id, JSON.stringify({ ...item, replica: this.#state.replica })]);
    await this.#state.publish(CHANNEL, { type: 'changed' });
  }

  /** The lease on the asks held here, renewed while there are any. */
  async #renewLease(): Promise<void> {
    await this.#state.command(['SET', LEASE_PREFIX + this.#state.replica, '1', 'PX', String(LEASE_MS)]);
  }

  /**
   * Takes the pending entry and writes `record`: true when this call ended it. `leased`: an answer
   * claims it only while its replica's lease holds, a sweep ends it only once the lease lapsed; a
   * lapsed one is ended as withdrawn either way.
   */
  async #end(id: string, record: EndedApproval, leased: false | 'answer' | 'sweep' = false): Promise<boolean> {
    const message = JSON.stringify({ type: 'ended', id, record });
    const gone: EndedApproval = {
      outcome: 'unavailable',
      withdrawn: LAPSED,
      at: new Date().toISOString(),
      expired: false,
    };
    const goneMessage = JSON.stringify({ type: 'ended', id, record: gone });
    const lease =
      leased !== false
        ? [LEASE_PREFIX, JSON.stringify(gone), goneMessage, leased === 'sweep' ? '1' : '0']
        : ['', '', '', '0'];
    const got = await this.#state.script(
      END,
      [PENDING, endedKey(id)],
      [id, JSON.stringify(record), String(ENDED_TTL_S), CHANNEL, message, ...lease],
    );
    const [claimed, before] = Array.isArray(got) ? got : [];
    if (claimed === 1) {
      this.#ended.set(id, record);
      return true;
    }
    const prior = records().Ended.safeParse(parseJson(before));
    if (prior.success) rememberEnded(this.#ended, id, stripUndefined(prior.data));
    return false;
  }

  #keepForLater(id: string, record: EndedApproval, err: unknown): void {
    if (!(err instanceof StateUnavailable))
      this.#logger?.warn({ err: String(err), approval: id }, 'cannot end the approval in the shared state');
    this.#unwritten.set(id, record);
  }

  #message(raw: Record<string, unknown>): void {
    const m = records().Message.safeParse(raw);
    if (!m.success) return;
    if (m.data.type === 'ended' && m.data.id !== undefined && m.data.record !== undefined) {
      const record = stripUndefined(m.data.record);
      rememberEnded(this.#ended, m.data.id, record);
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
      if (this.#held.size === 0 && !this.#answerers.watching) {
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
      if (this.#held.size > 0) await this.#renewLease();
      for (const id of [...this.#held.keys()]) {
        const e = records().Ended.safeParse(parseJson(await this.#state.command(['GET', endedKey(id)])));
        if (e.success) this.#held.get(id)?.settle(e.data.outcome, e.data.answeredBy, undefined, true);
      }
      if (this.#answerers.watching) await this.#refresh();
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
    const parsed = all.flatMap((text) => {
      const p = records().Pending.safeParse(parseJson(text));
      return p.success ? [stripUndefined(p.data) as Listed] : [];
    });
    const items = await this.#withoutLapsed(parsed);
    items.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const before = JSON.stringify(this.#mirror);
    this.#mirror = items;
    if (JSON.stringify(items) !== before) this.#emit();
  }

  /** The asks whose replica still holds its lease; the others are ended as withdrawn (END checks again, atomically). */
  async #withoutLapsed(items: Listed[]): Promise<Listed[]> {
    const replicas = [...new Set(items.flatMap((i) => (i.replica !== undefined ? [i.replica] : [])))];
    if (replicas.length === 0) return items;
    let leases: unknown;
    try {
      leases = await this.#state.command(['MGET', ...replicas.map((r) => LEASE_PREFIX + r)]);
    } catch {
      return items;
    }
    const lapsed = new Set(replicas.filter((_, i) => Array.isArray(leases) && leases[i] === null));
    const kept = items.filter((i) => i.replica === undefined || !lapsed.has(i.replica));
    for (const i of items) {
      if (i.replica !== undefined && lapsed.has(i.replica))
        await this.#end(i.id, endedRecord(i, 'unavailable', undefined, LAPSED), 'sweep').catch(() => undefined);
    }
    return kept;
  }

  /** Redis went away: the asks held here cannot be answered, so they are denied now. */
  #down(): void {
    for (const { settle } of [...this.#held.values()])
      settle('unavailable', undefined, 'the shared state (Redis) became unavailable');
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

  #emit(): void {
    emitPending(this.#listeners, this.list());
  }
}

/** zod's optional keys come back as `undefined` values; the records here never carry those. */
/** The object without its undefined values: zod's optional keys parse as `T | undefined`, a record's are absent. */
function stripUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
