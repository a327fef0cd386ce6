// approvals: which channels answer 'ask' while this set serves, tried in order until one gives an
// answer other than 'unavailable'. Without this entry only a channel registered per call (MCP
// elicitation) or the runtime's own service can answer; with none, every ask is denied.
import { z } from 'zod';
import { HttpApprovalChannel, TtyApprovalChannel, type ApprovalService } from '../../approval/index.js';
import { definePolicy, service } from '../module.js';

const Channel = z.union([
  z.literal('tty'),
  z.literal('queue'),
  z.strictObject({
    http: z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      timeoutMs: z.number().int().positive().max(600_000).default(30_000),
      headers: z.record(z.string(), z.string()).optional(),
    }),
  }),
]);

export const approvals = definePolicy({
  name: 'approvals',
  inject: ['approvals', 'queue', 'logger', 'tty'],
  config: z.strictObject({ channels: z.array(Channel).min(1) }),
  apply(ctx, cfg) {
    const router = service(ctx, 'approvals');
    const queue = service(ctx, 'queue');
    const logger = service(ctx, 'logger');
    const channels: ApprovalService[] = cfg.channels.map((c) => {
      if (c === 'tty') return new TtyApprovalChannel(service(ctx, 'tty'));
      if (c === 'queue') return queue;
      return new HttpApprovalChannel({
        url: c.http.url,
        timeoutMs: c.http.timeoutMs,
        ...(c.http.headers ? { headers: c.http.headers } : {}),
        onError: (err) => logger.warn({ err, entry: ctx.entryId }, 'approval callback failed; treated as unavailable'),
      });
    });
    ctx.effect(() => router.useChannels(channels));
  },
});
