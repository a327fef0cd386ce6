// deny-tools and allow-tools: the simplest layer. Entries run in file order, so an organisation's
// deny listed before a project's allow always wins.
import { z } from 'zod';
import { definePolicy } from '../module.js';
import { appliesTo, by } from './select.js';

export const denyTools = definePolicy({
  name: 'deny-tools',
  config: z.strictObject({ tools: z.array(z.string().min(1)).min(1), reason: z.string().min(1).optional() }),
  apply(ctx, cfg) {
    const match = appliesTo(cfg.tools);
    ctx.on('tools/pre-execute', ctx.entryId, (exec, next) =>
      match(exec.name) ? { kind: 'deny', reason: by(ctx.entryId, cfg.reason, `tool "${exec.name}" is denied`) } : next(),
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
      if (cfg.exclusive) return { kind: 'deny', reason: by(ctx.entryId, undefined, `tool "${exec.name}" is not on the allow list`) };
      return next();
    });
  },
});
