// The HTTP MCP sessions, so that they end: one with no open request for `idleMs` is closed, and at
// the cap the least recently used idle one makes room for a new client. A client that never sends
// DELETE (many do not) no longer holds a slot for good.
import type { ServerResponse } from 'node:http';

interface Entry<T> {
  value: T;
  close(): Promise<void>;
  /** Requests of this session still open (an SSE stream counts): the session is busy. */
  open: number;
  lastUsed: number;
}

export interface SessionHealth {
  active: number;
  max: number;
  idleTimeoutMs: number;
  /** At the cap with no idle session to evict: a new client would be refused. */
  saturated: boolean;
}

export interface SessionTableOptions {
  max: number;
  idleMs: number;
  onExpired?: (id: string, why: 'idle' | 'evicted') => void;
}

export class SessionTable<T> {
  readonly max: number;
  readonly idleMs: number;
  // A Map keeps insertion order; touching a session re-inserts it, so the first idle entry is the LRU.
  readonly #entries = new Map<string, Entry<T>>();
  readonly #sweep: NodeJS.Timeout;
  readonly #onExpired: (id: string, why: 'idle' | 'evicted') => void;

  constructor(options: SessionTableOptions) {
    this.max = options.max;
    this.idleMs = options.idleMs;
    this.#onExpired = options.onExpired ?? (() => {});
    this.#sweep = setInterval(() => void this.expireIdle(), Math.max(10, Math.min(options.idleMs / 4, 30_000)));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  add(id: string, value: T, close: () => Promise<void>): void {
    this.#entries.set(id, { value, close, open: 0, lastUsed: performance.now() });
  }

  remove(id: string): void {
    this.#entries.delete(id);
  }

  /** The session for a request, marked busy until `res` closes; undefined when there is none. */
  use(id: string, res: ServerResponse): T | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    entry.open += 1;
    entry.lastUsed = performance.now();
    res.once('close', () => {
      entry.open -= 1;
      entry.lastUsed = performance.now();
    });
    return entry.value;
  }

  /** True when a new session fits, after evicting the least recently used idle one if needed. */
  async makeRoom(): Promise<boolean> {
    if (this.#entries.size < this.max) return true;
    const lru = [...this.#entries].find(([, e]) => e.open === 0);
    if (lru === undefined) return false;
    await this.#end(lru[0], lru[1], 'evicted');
    return this.#entries.size < this.max;
  }

  /** Closes every session idle for longer than idleMs. */
  async expireIdle(now = performance.now()): Promise<void> {
    const idle = [...this.#entries].filter(([, e]) => e.open === 0 && now - e.lastUsed >= this.idleMs);
    await Promise.allSettled(idle.map(([id, e]) => this.#end(id, e, 'idle')));
  }

  health(): SessionHealth {
    const busy = [...this.#entries.values()].every((e) => e.open > 0);
    return { active: this.#entries.size, max: this.max, idleTimeoutMs: this.idleMs, saturated: this.#entries.size >= this.max && busy };
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.allSettled(all.map((e) => e.close()));
  }

  async #end(id: string, entry: Entry<T>, why: 'idle' | 'evicted'): Promise<void> {
    this.#entries.delete(id);
    this.#onExpired(id, why);
    await entry.close().catch(() => {});
  }
}
