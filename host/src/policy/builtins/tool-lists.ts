// deny-tools and allow-tools. deny-tools is a red line (a guard): no allow-tools entry, before or
// after it, lets a denied tool run. allow-tools stays a pre-execute policy, so order decides among
// the reorderable ones (ask, modules).
import { z } from 'zod';
import { definePolicy } from '../module.js';
import { appliesTo, by, redLine } from './select.js';

export const denyTools = definePolicy({
  name: 'deny-tools',
  config: z.strictObject({ tools: z.array(z.string().min(1)).min(1), reason: z.string().min(1).optional() }),
  apply(ctx, cfg) {
    const match = appliesTo(cfg.tools);
    redLine(ctx, (exec) =>
      match(exec.name) ? by(ctx.entryId, cfg.reason, `tool "${exec.name}" is denied`) : undefined,
    );
  },
});

export const allowTools = definePolicy({
  name: 'allow-tools',
  config: z.strictObject({
    tools: z.array(z.string().min(1)).min(1),
    /** true (default): tools not on the list are denied. false: they pass on to later entries. */
    exclusive: z.boolean().default(true),
  }),
  apply(ctx, cfg) {
    const match = appliesTo(cfg.tools);
    // A listed tool is allowed here and later pre-execute entries are not asked; guards still run.
    ctx.on('tools/pre-execute', ctx.entryId, (exec, next) => {
      if (match(exec.name)) return { kind: 'allow' };
      if (cfg.exclusive)
        return { kind: 'deny', reason: by(ctx.entryId, undefined, `tool "${exec.name}" is not on the allow list`) };
      return next();
    });
  },
});
