// deny-args: refuses a call when any string argument, at any depth, matches a glob or a regex.
// Paths are also tried normalised (`a/./b/../.env`), so spelling a path differently does not help.
import { posix } from 'node:path';
import { z } from 'zod';
import { pathGlob } from '../glob.js';
import { definePolicy } from '../module.js';
import { stringsIn } from '../values.js';
import { appliesTo, by, toolsField } from './select.js';

const Pattern = z.union([z.strictObject({ glob: z.string().min(1) }), z.strictObject({ regex: z.string().min(1) })]);

function compile(p: z.infer<typeof Pattern>): { label: string; re: RegExp } {
  if ('glob' in p) return { label: p.glob, re: pathGlob(p.glob) };
  return { label: `/${p.regex}/`, re: new RegExp(p.regex) };
}

/** The spellings of a value a pattern is tried against. */
export function spellings(value: string): string[] {
  const slashed = value.replace(/\\/g, '/');
  const out = new Set([value, slashed]);
  if (slashed.includes('/') || slashed.startsWith('.')) out.add(posix.normalize(slashed));
  if (slashed.startsWith('file://')) {
    try {
      out.add(decodeURIComponent(new URL(slashed).pathname));
    } catch {
      // not a URL after all
    }
  }
  return [...out];
}

export const denyArgs = definePolicy({
  name: 'deny-args',
  config: z
    .strictObject({
      patterns: z.array(Pattern).min(1),
      /** Only values under these argument names (the last key on the path); absent = every value. */
      keys: z.array(z.string().min(1)).min(1).optional(),
      tools: toolsField,
      reason: z.string().min(1).optional(),
    })
    .superRefine((cfg, zctx) => {
      cfg.patterns.forEach((p, i) => {
        if ('regex' in p) {
          try {
            new RegExp(p.regex);
          } catch (err) {
            zctx.addIssue({ code: 'custom', path: ['patterns', i, 'regex'], message: `invalid regular expression: ${err instanceof Error ? err.message : String(err)}` });
          }
        }
      });
    }),
  apply(ctx, cfg) {
    const patterns = cfg.patterns.map(compile);
    const applies = appliesTo(cfg.tools);
    const keys = cfg.keys === undefined ? undefined : new Set(cfg.keys);
    ctx.on('tools/pre-execute', ctx.entryId, (exec, next) => {
      if (!applies(exec.name)) return next();
      for (const { path, value } of stringsIn(exec.arguments)) {
        if (keys !== undefined && !keys.has(path.replace(/\[\d+\]$/, '').split('.').pop() ?? '')) continue;
        const hit = patterns.find((p) => spellings(value).some((s) => p.re.test(s)));
        // The reason names the argument and the rule, never the value: it may be the secret itself.
        if (hit) return { kind: 'deny', reason: by(ctx.entryId, cfg.reason, `argument "${path}" matches ${hit.label}`) };
      }
      return next();
    });
  },
});
