// The call's deadline, and retries (a wrapper on tools/execute). A wrapper may only replace the
// signal; the caller's own signal and the call's deadline are fused back in below it.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ERROR_CODES, ToolFailure, type ErrorCode } from '../../tool/index.js';
import { definePolicy } from '../module.js';
import { appliesTo, toolsField } from './select.js';

// deadline: the call's deadline, not a wrapper. It bounds every stage from dispatch on (pre-execute
// listeners, guards, wrappers, the body, post-execute); the shortest of the manifest's timeout, each
// deadline entry and the caller's own wins, so no entry can lengthen another's.
export const deadline = definePolicy({
  name: 'deadline',
  config: z.strictObject({
    ms: z
      .number()
      .int()
      .positive()
      .max(24 * 3600 * 1000),
    tools: toolsField,
  }),
  apply(ctx, cfg) {
    const applies = appliesTo(cfg.tools);
    ctx.deadline(ctx.entryId, (exec) => (applies(exec.name) ? cfg.ms : undefined));
  },
});

const codeField = z.enum(ERROR_CODES);

export const retry = definePolicy({
  name: 'retry',
  config: z.strictObject({
    /** Total tries including the first. */
    attempts: z.number().int().min(1).max(10).default(3),
    backoffMs: z.number().int().min(0).max(60_000).default(100),
    maxBackoffMs: z.number().int().min(0).max(300_000).default(2_000),
    /** Failures worth another try. */
    on: z.array(codeField).min(1).default(['TOOL_ERROR', 'SANDBOX_ERROR', 'TIMEOUT']),
    tools: toolsField,
  }),
  apply(ctx, cfg) {
    const applies = appliesTo(cfg.tools);
    const retriable = new Set<ErrorCode>(cfg.on);
    ctx.on('tools/execute', ctx.entryId, async (exec, next, tool) => {
      // Only a tool that says a repeat is harmless is repeated.
      if (!applies(exec.name) || tool.definition.annotations?.idempotentHint !== true) return next();
      let out = await next();
      for (let i = 1; i < cfg.attempts; i++) {
        if (out.ok || !retriable.has(out.error.code) || exec.signal.aborted) return out;
        const wait = Math.min(cfg.maxBackoffMs, cfg.backoffMs * 2 ** (i - 1));
        try {
          await sleep(wait, undefined, { signal: exec.signal });
        } catch {
          // The caller (or a deadline) gave up while we waited: say so, not the last flake.
          const reason: unknown = exec.signal.reason;
          const code: ErrorCode = reason instanceof ToolFailure ? reason.code : 'ABORTED';
          return {
            ok: false,
            error: {
              code,
              message: `call to "${exec.name}" stopped during retry backoff after ${i} attempt(s); last error: ${out.error.message}`,
            },
          };
        }
        out = await next();
      }
      return out;
    });
  },
});
