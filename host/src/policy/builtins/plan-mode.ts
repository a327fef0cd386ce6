// plan-mode: while planning, only tools that say they only read (readOnlyHint) may run. A guard,
// so no allow entry can make an exception; `except` is the only way.
import { z } from 'zod';
import { definePolicy } from '../module.js';

export const planMode = definePolicy({
  name: 'plan-mode',
  config: z.strictObject({ except: z.array(z.string().min(1)).optional() }).default({}),
  apply(ctx, cfg) {
    const except = new Set(cfg.except ?? []);
    ctx.guard(ctx.entryId, (exec, tool) =>
      tool.definition.annotations?.readOnlyHint === true || except.has(tool.name)
        ? undefined
        : `plan mode: only read-only tools run, and "${tool.name}" is not marked readOnlyHint (guard "${ctx.entryId}")`,
    );
  },
});
