// rate-limit: token buckets per tool, per agent, or per (tool, agent). A call needs one token from
// each bucket it falls in, taken all or none. Under dry run (policy explain) nothing is taken.
// The buckets are this process's (TokenBuckets) unless the server shares state (`serve --state`):
// then every replica takes from the same buckets in Redis (SharedBuckets), and a call that cannot
// reach them is refused, never let through.
import { z } from 'zod';
import { messageOf } from '../../errors/index.js';
import { definePolicy, service } from '../module.js';
import { appliesTo, by, toolsField } from './select.js';

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

export const rateLimit = definePolicy({
  name: 'rate-limit',
  inject: ['buckets'],
  config: z.strictObject({
    /** Burst size: tokens a full bucket holds. */
    capacity: z.number().int().positive(),
    /** Tokens added back per second. */
    refillPerSecond: z.number().positive(),
    per: z.array(z.enum(['tool', 'agent', 'tool+agent'])).min(1).default(['tool']),
    tools: toolsField,
  }),
  apply(ctx, cfg) {
    const buckets = service(ctx, 'buckets')(ctx.entryId, cfg.capacity, cfg.refillPerSecond);
    const applies = appliesTo(cfg.tools);
    ctx.on('tools/pre-execute', ctx.entryId, async (exec, next, info) => {
      const later = await next();
      // A call someone else refuses costs no token.
      if (later.kind === 'deny' || !applies(exec.name)) return later;
      const agent = exec.agent ?? '(none)';
      const keys = cfg.per.map((p) => (p === 'tool' ? `t:${exec.name}` : p === 'agent' ? `a:${agent}` : `ta:${exec.name}\u0000${agent}`));
      let taken: boolean;
      try {
        taken = await buckets.tryTake(keys, !info.dryRun);
      } catch (err) {
        return { kind: 'deny', code: 'RATE_LIMITED', reason: by(ctx.entryId, undefined, `rate limit: cannot reach the shared buckets, so the call is refused (${messageOf(err)})`) };
      }
      if (taken) return later;
      return { kind: 'deny', code: 'RATE_LIMITED', reason: by(ctx.entryId, undefined, `rate limit: more than ${cfg.capacity} calls in a burst or ${cfg.refillPerSecond}/s for ${cfg.per.join(', ')}`) };
    });
  },
});
