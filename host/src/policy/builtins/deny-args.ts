// deny-args: a red line on argument values. A guard, so no allow in any order overturns it. A value
// is matched in every spelling that could name the same thing: percent-decoded until stable (so
// `%252Eenv` is `.env`), with `\` as `/`, `.`/`..` and repeated separators resolved, the path of a
// URL of any scheme, its Unicode compatibility form (NFKC), and (by default) ignoring case, since
// many filesystems do. A glob also matches everything beneath what it matches (`a/.env/x`).
import { posix } from 'node:path';
import { z } from 'zod';
import { compileLinear, linearRegex, type LinearRegex } from '../../regex/index.js';
import { pathGlob } from '../glob.js';
import { definePolicy } from '../module.js';
import { stringsIn, tooManyStrings } from '../values.js';
import { appliesTo, redLine, toolsField } from './select.js';

const Pattern = z.union([z.strictObject({ glob: z.string().min(1) }), z.strictObject({ regex: z.string().min(1) })]);

function compile(p: z.infer<typeof Pattern>, caseSensitive: boolean): { label: string; re: LinearRegex } {
  const options = { ignoreCase: !caseSensitive };
  if ('glob' in p) return { label: p.glob, re: pathGlob(p.glob, { ...options, beneath: true }) };
  return { label: `/${p.regex}/`, re: linearRegex(p.regex, options) };
}

/** Enough rounds for any nesting a client would bother with; more is refused as suspicious. */
const MAX_DECODE_ROUNDS = 8;

function decodeOnce(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    // A malformed sequence elsewhere must not shield the well-formed ones: decode byte by byte.
    return v.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

/** Percent-decoding repeated until nothing changes (bounded); every round's result is a spelling. */
function decodings(value: string): string[] {
  const out = [value];
  let cur = value;
  for (let i = 0; i < MAX_DECODE_ROUNDS; i++) {
    const next = decodeOnce(cur);
    if (next === cur) break;
    out.push(next);
    cur = next;
  }
  return out;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The spellings of a value a pattern is tried against. */
export function spellings(value: string): string[] {
  const out = new Set<string>();
  const addPath = (v: string): void => {
    const slashed = v.replace(/\\/g, '/');
    out.add(v);
    // Compatibility forms (a fullwidth ．env is .env to a tool that normalises what it is given).
    const compat = v.normalize('NFKC');
    if (compat !== v) addPath(compat);
    out.add(slashed);
    if (slashed.includes('/') || slashed.startsWith('.')) {
      const norm = posix.normalize(slashed);
      out.add(norm);
      if (norm.startsWith('./')) out.add(norm.slice(2));
    }
  };
  for (const v of decodings(value)) {
    addPath(v);
    if (!SCHEME.test(v)) continue;
    try {
      // Any scheme: http://h/%2eenv and s3://b/.env name a path just as file:///x/.env does.
      const u = new URL(v.replace(/\\/g, '/'));
      for (const p of decodings(u.pathname)) addPath(p);
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
      /** false (default): `.ENV` matches a pattern for `.env`. */
      caseSensitive: z.boolean().default(false),
      tools: toolsField,
      reason: z.string().min(1).optional(),
    })
    .superRefine((cfg, zctx) => {
      cfg.patterns.forEach((p, i) => {
        if ('regex' in p) {
          // Regexes run on RE2 (linear time): one it cannot compile is refused here, at load.
          const re = compileLinear(p.regex);
          if (typeof re === 'string') {
            zctx.addIssue({
              code: 'custom',
              path: ['patterns', i, 'regex'],
              message: `invalid regular expression ${JSON.stringify(p.regex)}: ${re} (regexes run on RE2, in linear time: no lookaround or backreferences)`,
            });
          }
        }
      });
    }),
  apply(ctx, cfg) {
    const patterns = cfg.patterns.map((p) => compile(p, cfg.caseSensitive));
    const applies = appliesTo(cfg.tools);
    const keys = cfg.keys === undefined ? undefined : new Set(cfg.keys);
    redLine(ctx, (exec) => {
      if (!applies(exec.name)) return undefined;
      const strings = stringsIn(exec.arguments);
      if (!strings.complete) return `${tooManyStrings(`policy "${ctx.entryId}"`)}`;
      for (const { path, value } of strings) {
        if (
          keys !== undefined &&
          !keys.has(
            path
              .replace(/\[\d+\]$/, '')
              .split('.')
              .pop() ?? '',
          )
        )
          continue;
        const forms = spellings(value);
        const hit = patterns.find((p) => forms.some((s) => p.re.test(s)));
        if (hit === undefined) continue;
        // The reason names the argument and the rule, never the value: it may be the secret itself.
        const rule = `argument "${path}" matches ${hit.label}`;
        return cfg.reason === undefined
          ? `${rule} (policy "${ctx.entryId}")`
          : `${cfg.reason}: ${rule} (policy "${ctx.entryId}")`;
      }
      return undefined;
    });
  },
});
