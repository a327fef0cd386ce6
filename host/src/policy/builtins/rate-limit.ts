// rate-limit: token buckets per tool, per agent, or per (tool, agent). A call needs one token from
// each bucket it falls in, taken all or none. Under dry run (policy explain) nothing is taken.
// The buckets are this process's (TokenBuckets) unless the server shares state (`serve --state`):
// then every replica takes from the same buckets in Redis (SharedBuckets), and a call that cannot
// reach them is refused, never let through.
import { z } from 'zod';
import { messageOf } from '../../errors/index.js';
import { definePolicy, service } from '../module.js';
export { TokenBuckets, memoryBuckets, type Buckets, type BucketsFactory } from '../buckets.js';
import { appliesTo, by, toolsField } from './select.js';

export const rateLimit = definePolicy({
  name: 'rate-limit',
  inject: ['buckets'],
  config: z.strictObject({
    /** Burst size: tokens a full bucket holds. */
    capacity: z.number().int().positive(),
    /** Tokens added back per second. */
    refillPerSecond: z.number().positive(),
    per: z
      .array(z.enum(['tool', 'agent', 'tool+agent']))
      .min(1)
      .default(['tool']),
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
      const keys = cfg.per.map((p) =>
        p === 'tool' ? `t:${exec.name}` : p === 'agent' ? `a:${agent}` : `ta:${exec.name}\u0000${agent}`,
      );
      const refused = (why: string) =>
        ({ kind: 'deny', code: 'RATE_LIMITED', reason: by(ctx.entryId, undefined, why) }) as const;
      let taken: boolean;
      try {
        taken = await buckets.tryTake(keys, !info.dryRun);
      } catch (err) {
        return refused(`rate limit: cannot reach the shared buckets, so the call is refused (${messageOf(err)})`);
      }
      if (taken) return later;
      return refused(
        `rate limit: more than ${cfg.capacity} calls in a burst or ${cfg.refillPerSecond}/s for ${cfg.per.join(', ')}`,
      );
    });
  },
});
