// The HTTP MCP sessions, so that they end: one with no open request for `idleMs` is closed, and at
// the cap the least recently used idle one makes room for a new client. A client that never sends
// DELETE (many do not) no longer holds a slot for good. Only requests are activity: an open GET
// (SSE) stream alone keeps no session alive, and one address holds at most `maxPerOwner` sessions,
// so no one client can take every slot (docs/architecture.md §3, Transport).
import type { ServerResponse } from 'node:http';

interface Entry<T> {
  value: T;
  close(): Promise<void>;
  /** The remote address that opened the session. */
  owner: string;
  /** Requests of this session still open (a GET stream does not count): the session is busy. */
  open: number;
  lastUsed: number;
}

export interface SessionHealth {
  active: number;
  max: number;
  maxPerAddress: number;
  idleTimeoutMs: number;
  /** At the cap with no idle session to evict: a new client would be refused. */
  saturated: boolean;
}

export interface SessionTableOptions {
  max: number;
  /** Sessions one remote address may hold; at most `max`. */
  maxPerOwner: number;
  idleMs: number;
  onExpired?: (id: string, why: 'idle' | 'evicted') => void;
}

/** Whether a new session may open: a place held for it, or why not. */
export type Room = { ok: true; release: () => void } | { ok: false; why: 'full' | 'owner-full' };

/** What a request in a session is: a request keeps the session busy; a GET stream only listens. */
export type SessionUse = 'request' | 'stream';

export class SessionTable<T> {
  readonly max: number;
  readonly maxPerOwner: number;
  readonly idleMs: number;
  // A Map keeps insertion order; touching a session re-inserts it, so the first idle entry is the LRU.
  readonly #entries = new Map<string, Entry<T>>();
  /** Places held for sessions being initialized, per owner: concurrent initializes cannot overshoot a cap. */
  readonly #pending = new Map<string, number>();
  #pendingTotal = 0;
  readonly #sweep: NodeJS.Timeout;
  readonly #onExpired: (id: string, why: 'idle' | 'evicted') => void;

  constructor(options: SessionTableOptions) {
    this.max = options.max;
    this.maxPerOwner = Math.min(options.maxPerOwner, options.max);
    this.idleMs = options.idleMs;
    this.#onExpired = options.onExpired ?? (() => {});
    this.#sweep = setInterval(() => void this.expireIdle(), Math.max(10, Math.min(options.idleMs / 4, 30_000)));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  add(id: string, value: T, close: () => Promise<void>, owner: string): void {
    this.#entries.set(id, { value, close, owner, open: 0, lastUsed: performance.now() });
  }

  remove(id: string): void {
    this.#entries.delete(id);
  }

  /** The address that opened the session; undefined when there is no such session. */
  ownerOf(id: string): string | undefined {
    return this.#entries.get(id)?.owner;
  }

  /**
   * The session for a request; undefined when there is none. A request marks it busy until `res`
   * closes; a stream only counts as a use when it opens, so an idle stream lets the session expire
   * (closing the session ends the stream).
   */
  use(id: string, res: ServerResponse, kind: SessionUse = 'request'): T | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    entry.lastUsed = performance.now();
    if (kind === 'stream') return entry.value;
    entry.open += 1;
    res.once('close', () => {
      entry.open -= 1;
      entry.lastUsed = performance.now();
    });
    return entry.value;
  }

  /**
   * Holds a place for a new session of `owner`: at the owner's share its own least recently used
   * idle session makes room, at the cap anyone's. `release` (once the initialize is answered)
   * gives the place back; by then the session has joined the table.
   */
  async makeRoom(owner: string): Promise<Room> {
    if (this.#ownedBy(owner) >= this.maxPerOwner) {
      const own = this.#lruIdle((e) => e.owner === owner);
      if (own === undefined) return { ok: false, why: 'owner-full' };
      await this.#end(own[0], own[1], 'evicted');
      if (this.#ownedBy(owner) >= this.maxPerOwner) return { ok: false, why: 'owner-full' };
    }
    if (this.#entries.size + this.#pendingTotal >= this.max) {
      const lru = this.#lruIdle(() => true);
      if (lru === undefined) return { ok: false, why: 'full' };
      await this.#end(lru[0], lru[1], 'evicted');
      if (this.#entries.size + this.#pendingTotal >= this.max) return { ok: false, why: 'full' };
    }
    return { ok: true, release: this.#hold(owner) };
  }

  /** Closes every session idle for longer than idleMs. */
  async expireIdle(now = performance.now()): Promise<void> {
    const idle = [...this.#entries].filter(([, e]) => e.open === 0 && now - e.lastUsed >= this.idleMs);
    await Promise.allSettled(idle.map(([id, e]) => this.#end(id, e, 'idle')));
  }

  health(): SessionHealth {
    const busy = [...this.#entries.values()].every((e) => e.open > 0);
    return {
      active: this.#entries.size,
      max: this.max,
      maxPerAddress: this.maxPerOwner,
      idleTimeoutMs: this.idleMs,
      saturated: this.#entries.size >= this.max && busy,
    };
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.allSettled(all.map((e) => e.close()));
  }

  #ownedBy(owner: string): number {
    let n = this.#pending.get(owner) ?? 0;
    for (const e of this.#entries.values()) if (e.owner === owner) n += 1;
    return n;
  }

  #lruIdle(which: (e: Entry<T>) => boolean): [string, Entry<T>] | undefined {
    for (const pair of this.#entries) if (pair[1].open === 0 && which(pair[1])) return pair;
    return undefined;
  }

  #hold(owner: string): () => void {
    this.#pending.set(owner, (this.#pending.get(owner) ?? 0) + 1);
    this.#pendingTotal += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#pendingTotal -= 1;
      const left = (this.#pending.get(owner) ?? 1) - 1;
      if (left <= 0) this.#pending.delete(owner);
      else this.#pending.set(owner, left);
    };
  }

  async #end(id: string, entry: Entry<T>, why: 'idle' | 'evicted'): Promise<void> {
    this.#entries.delete(id);
    this.#onExpired(id, why);
    await entry.close().catch(() => {});
  }
}
