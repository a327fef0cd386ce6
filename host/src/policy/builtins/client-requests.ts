// client-requests: what a running tool may ask of the client that called it. A tool whose manifest
// declares elicitation, sampling or roots may send those requests; this entry denies them (all, or for
// the tools it names), or caps how many tokens a sampling request may ask for. A denial is the
// tool's answer (DENIED), not the end of the call: the tool decides what to do without it.
import { z } from 'zod';
import { definePolicy } from '../module.js';
import { appliesTo, by, toolsField } from './select.js';
import { CLIENT_REQUEST_KINDS } from '../../tool/index.js';

export const clientRequests = definePolicy({
  name: 'client-requests',
  config: z
    .strictObject({
      deny: z.array(z.enum(CLIENT_REQUEST_KINDS)).min(1).optional(),
      /** Sampling requests whose maxTokens is above this are denied. */
      max_tokens: z.number().int().positive().optional(),
      tools: toolsField,
      reason: z.string().min(1).optional(),
    })
    .refine((c) => c.deny !== undefined || c.max_tokens !== undefined, 'needs deny or max_tokens'),
  apply(ctx, cfg) {
    const match = appliesTo(cfg.tools);
    const denied = new Set(cfg.deny ?? []);
    ctx.clientRequest(ctx.entryId, (req, exec) => {
      if (!match(exec.name)) return undefined;
      if (denied.has(req.kind))
        return by(ctx.entryId, cfg.reason, `tool "${exec.name}" may not send ${req.kind} requests`);
      const asked = req.params['maxTokens'];
      if (
        req.kind === 'sampling' &&
        cfg.max_tokens !== undefined &&
        typeof asked === 'number' &&
        asked > cfg.max_tokens
      ) {
        return by(
          ctx.entryId,
          cfg.reason,
          `a sampling request may ask for at most ${cfg.max_tokens} tokens (asked ${asked})`,
        );
      }
      return undefined;
    });
  },
});
