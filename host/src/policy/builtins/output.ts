// Post-execute built-ins: redaction of the canonical value (so structuredContent is clean too, and
// content is re-rendered from it) and a cap on rendered output.
import { z } from 'zod';
import { compileLinear, linearRegex } from '../../regex/index.js';
import type { ContentBlock } from '../../tool/index.js';
import { definePolicy, service } from '../module.js';
import { redactText } from '../secrets.js';
import { mapStrings } from '../values.js';
import { appliesTo, toolsField } from './select.js';

export const redact = definePolicy({
  name: 'redact',
  inject: ['secrets'],
  config: z
    .strictObject({
      tokens: z.boolean().default(true),
      emails: z.boolean().default(true),
      /** Values of the tool's declared secrets (read from the environment) wherever they occur. */
      secrets: z.boolean().default(true),
      patterns: z.array(z.string().min(1)).default([]),
      replacement: z.string().default('[REDACTED]'),
      tools: toolsField,
    })
    .superRefine((cfg, zctx) => {
      cfg.patterns.forEach((p, i) => {
        // Patterns run on RE2 (linear time): one it cannot compile is refused here, at load.
        const re = compileLinear(p);
        if (typeof re === 'string')
          zctx.addIssue({
            code: 'custom',
            path: ['patterns', i],
            message: `invalid regular expression ${JSON.stringify(p)}: ${re} (regexes run on RE2, in linear time: no lookaround or backreferences)`,
          });
      });
    })
    .default({ tokens: true, emails: true, secrets: true, patterns: [], replacement: '[REDACTED]' }),
  apply(ctx, cfg) {
    const applies = appliesTo(cfg.tools);
    const secrets = service(ctx, 'secrets');
    const patterns = cfg.patterns.map((p) => linearRegex(p));
    ctx.on('tools/post-execute', ctx.entryId, (call) => {
      if (!applies(call.exec.name)) return;
      const values = cfg.secrets ? secrets.valuesOf(call.tool.definition.capabilities?.secrets ?? []) : [];
      const clean = (s: string): string =>
        redactText(s, { tokens: cfg.tokens, emails: cfg.emails, values, patterns, replacement: cfg.replacement });
      if (call.value !== undefined) {
        const { value, changed } = mapStrings(call.value, clean);
        if (changed) call.accept({ value });
        return;
      }
      // A failure has no value; its message may still quote what the tool saw.
      let changed = false;
      const content: ContentBlock[] = call.result.content.map((b) => {
        if (b.type !== 'text') return b;
        const text = clean(b.text);
        if (text !== b.text) changed = true;
        return { type: 'text', text };
      });
      if (changed) call.accept(content);
    });
  },
});

export function contentBytes(content: readonly ContentBlock[]): number {
  let n = 0;
  for (const b of content) n += Buffer.byteLength(JSON.stringify(b), 'utf8');
  return n;
}

export const maxOutput = definePolicy({
  name: 'max-output',
  config: z.strictObject({ bytes: z.number().int().positive(), tools: toolsField }),
  apply(ctx, cfg) {
    const applies = appliesTo(cfg.tools);
    ctx.on('tools/post-execute', ctx.entryId, (call) => {
      if (!applies(call.exec.name)) return;
      const size = contentBytes(call.result.content);
      if (size > cfg.bytes) {
        call.block(
          `output of "${call.exec.name}" is ${size} bytes, over the limit of ${cfg.bytes} bytes (policy "${ctx.entryId}")`,
        );
      }
    });
  },
});
