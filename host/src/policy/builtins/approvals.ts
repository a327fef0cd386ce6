// approvals: which channels answer 'ask' while this set serves, tried in order until one gives an
// answer other than 'unavailable'. Without this entry only a channel registered per call (MCP
// elicitation) or the runtime's own service can answer; with none, every ask is denied.
import { z } from 'zod';
import { HttpApprovalChannel, TtyApprovalChannel, type ApprovalService } from '../../approval/index.js';
import { linkSignals } from '../../pipeline/index.js';
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
  config: z.strictObject({
    channels: z.array(Channel).min(1),
    /** How long a person gets to answer before the call is denied (default: the runtime's, 120 s). */
    timeout_ms: z
      .number()
      .int()
      .positive()
      .max(24 * 3600 * 1000)
      .optional(),
  }),
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
    // Requests still open when this set is disposed are cancelled (so denied), never left to a
    // channel that no set serves any more.
    const closing = new AbortController();
    const scoped: ApprovalService[] = channels.map((ch) => ({
      request: (req, signal) => {
        const linked = linkSignals([signal, closing.signal]);
        return ch.request(req, linked.signal).finally(linked.release);
      },
    }));
    // Only calls pinned to this entry's set reach these channels: a later set without channels
    // denies its asks at once instead of borrowing ours.
    ctx.effect(() => {
      const undo = router.useChannels(scoped, (callId) => ctx.ownsCall(callId), cfg.timeout_ms);
      return () => {
        undo();
        closing.abort(new Error(`the policy set of entry "${ctx.entryId}" was unloaded`));
      };
    });
  },
});
