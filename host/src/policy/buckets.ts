// The token buckets rate-limit takes from: one interface, kept in this process's memory
// (TokenBuckets, the default) or in the replicas' shared state (shared-buckets.ts, `serve --state`).
const MAX_BUCKETS = 10_000;

/** A set of token buckets of one capacity and refill rate. */
export interface Buckets {
  /** True when every key has a token; takes one from each only if so (and only if `take`). Throws when it cannot tell. */
  tryTake(keys: readonly string[], take: boolean): boolean | Promise<boolean>;
}

/** Makes the buckets of one rate-limit entry (`scope` is its entry id). */
export type BucketsFactory = (scope: string, capacity: number, perSecond: number) => Buckets;

export const memoryBuckets: BucketsFactory = (_scope, capacity, perSecond) => new TokenBuckets(capacity, perSecond);

export class TokenBuckets implements Buckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly capacity: number;
  readonly perSecond: number;
  readonly #now: () => number;

  constructor(capacity: number, perSecond: number, now: () => number = () => performance.now()) {
    this.capacity = capacity;
    this.perSecond = perSecond;
    this.#now = now;
  }

  #level(key: string): number {
    const b = this.#buckets.get(key);
    if (!b) return this.capacity;
    return Math.min(this.capacity, b.tokens + ((this.#now() - b.at) / 1000) * this.perSecond);
  }

  /** True when every key has a token; takes one from each only if so (and only if `take`). */
  tryTake(keys: readonly string[], take: boolean): boolean {
    if (!keys.every((k) => this.#level(k) >= 1)) return false;
    if (!take) return true;
    const now = this.#now();
    for (const k of keys) {
      const level = this.#level(k);
      this.#buckets.delete(k); // re-insert so the map stays in least-recently-used order
      this.#buckets.set(k, { tokens: level - 1, at: now });
    }
    // Bounded memory: forget the oldest buckets (a forgotten bucket is a full one, the lenient side).
    while (this.#buckets.size > MAX_BUCKETS) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest === undefined) break;
      this.#buckets.delete(oldest);
    }
    return true;
  }
}
