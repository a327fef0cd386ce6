// ask: sends matching calls to a person (the approval service). It asks the rest of the chain
// first, so a later deny still denies without bothering anyone.
import { z } from 'zod';
import type { Tool, ToolAnnotations } from '../../tool/index.js';
import { definePolicy } from '../module.js';
import { appliesTo, by, capabilityField, hasCapability } from './select.js';

const Hints = z.strictObject({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

export const ask = definePolicy({
  name: 'ask',
  config: z
    .strictObject({
      tools: z.array(z.string().min(1)).min(1).optional(),
      capabilities: z.array(capabilityField).min(1).optional(),
      /** e.g. { destructiveHint: true }: tools whose annotation has that value. */
      annotations: Hints.optional(),
      reason: z.string().min(1).optional(),
    })
    .refine((c) => c.tools !== undefined || c.capabilities !== undefined || c.annotations !== undefined, {
      message: 'ask needs at least one of tools, capabilities, annotations',
    }),
  apply(ctx, cfg) {
    const byName = cfg.tools ? appliesTo(cfg.tools) : () => false;
    const why = (tool: Tool): string | undefined => {
      if (byName(tool.name)) return `tool "${tool.name}" needs approval`;
      const cap = cfg.capabilities?.find((c) => hasCapability(tool, c));
      if (cap) return `tool "${tool.name}" uses ${cap}`;
      const hints: ToolAnnotations = tool.definition.annotations ?? {};
      const hint = Object.entries(cfg.annotations ?? {}).find(([k, v]) => hints[k as keyof ToolAnnotations] === v);
      if (hint) return `tool "${tool.name}" has ${hint[0]}: ${String(hint[1])}`;
      return undefined;
    };
    ctx.on('tools/pre-execute', ctx.entryId, async (_exec, next, info) => {
      const reason = why(info.tool);
      const later = await next();
      if (reason === undefined || later.kind === 'deny') return later;
      return { kind: 'ask', reason: by(ctx.entryId, cfg.reason, reason) };
    });
  },
});
