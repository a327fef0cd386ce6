// A policy ceiling: what no installed tool may ask for, whatever the person at the keyboard answers.
// Read from `--ceiling FILE` or $TOOLGATE_HOME/ceiling.yaml. Absent keys set no limit.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseHostPattern, parseHostRule, ruleCovers } from '../host-grammar/index.js';
import { RegistryError } from './errors.js';
import { CLIENT_FEATURES } from '../tool/index.js';
import type { CapabilitySet, NumericCapability } from './manifest-adapter.js';
import { messageOf } from '../errors/index.js';
import { yaml } from '../lazy-yaml/index.js';

const ceilingSchema = z.strictObject({
  /** Host rules (host-grammar) a tool's allowed_hosts must fall under, e.g. ["*.example.com"]; [] = no network. */
  allowed_hosts: z
    .array(
      z.string().superRefine((raw, zctx) => {
        const rule = parseHostRule(raw);
        if (typeof rule === 'string')
          zctx.addIssue({ code: 'custom', message: `host rule ${JSON.stringify(raw)}: ${rule}` });
      }),
    )
    .optional(),
  /** false = no filesystem mounts at all. */
  allow_paths: z.boolean().optional(),
  /** false = read-only mounts only. */
  allow_rw_paths: z.boolean().optional(),
  max_pages: z.number().int().positive().optional(),
  max_http_response_bytes: z.number().int().positive().optional(),
  max_timeout_ms: z.number().int().positive().optional(),
  max_output_bytes: z.number().int().positive().optional(),
  max_input_bytes: z.number().int().positive().optional(),
  max_var_bytes: z.number().int().positive().optional(),
  /** Largest write quota (allowed_paths.<guest>.max_bytes) of any rw mount. */
  max_write_bytes: z.number().int().positive().optional(),
  /** Largest entry quota (allowed_paths.<guest>.max_entries) of any rw mount. */
  max_write_entries: z.number().int().nonnegative().optional(),
  /** Largest pool.max (instances of one tool at once). */
  max_pool: z.number().int().positive().optional(),
  /** Config keys a tool may receive; [] = none. */
  allowed_config: z.array(z.string()).optional(),
  /** Secret names a tool may receive; [] = none. */
  allowed_secrets: z.array(z.string()).optional(),
  /** capabilities.mcp features a tool may have (logging, progress, elicitation, sampling, roots); [] = none. */
  allowed_mcp: z.array(z.enum(CLIENT_FEATURES)).optional(),
  /** Largest module (bytes) a package may carry. */
  max_module_bytes: z.number().int().positive().optional(),
  /** false = refuse a tool whose model-visible text was flagged at install (screen.ts). */
  allow_flagged_text: z.boolean().optional(),
});
export type Ceiling = z.infer<typeof ceilingSchema>;

export function parseCeiling(text: string, file: string): Ceiling {
  let raw: unknown;
  try {
    raw = yaml().parse(text) ?? {};
  } catch (err) {
    throw new RegistryError('BAD_CONFIG', `${file}: not valid YAML (${messageOf(err)})`);
  }
  const parsed = ceilingSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    throw new RegistryError('BAD_CONFIG', `${file}: ${path}: ${issue?.message ?? 'invalid ceiling'}`);
  }
  return parsed.data;
}

/** Loads the ceiling file; a missing optional file (the store default) means no ceiling. */
export async function loadCeiling(file: string, required: boolean): Promise<Ceiling | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !required) return undefined;
    throw new RegistryError('BAD_CONFIG', `${file}: cannot read ceiling file (${messageOf(err)})`);
  }
  return parseCeiling(text, file);
}

/**
 * Whether a requested allowed_hosts entry can only reach hosts the ceiling rule allows. Both are
 * read with the sandbox's host grammar (`127.1:8080` is `127.0.0.1:8080`); `*.x.com` covers
 * `a.x.com`, `a.b.x.com` and `*.a.x.com` but not `x.com`; a rule without a port allows any port,
 * one with a port only that port; `*` allows every host. Anything either side cannot parse is not covered.
 */
export function hostCovered(requested: string, ceilingRule: string): boolean {
  const target = parseHostPattern(requested);
  const rule = parseHostRule(ceilingRule);
  return typeof target !== 'string' && typeof rule !== 'string' && ruleCovers(rule, target);
}

type Check = (caps: CapabilitySet, ceiling: Ceiling, out: string[]) => void;

function limit(key: NumericCapability, what: string, of: (c: Ceiling) => number | undefined): Check {
  return (caps, ceiling, out) => {
    const max = of(ceiling);
    if (max !== undefined && caps[key] > max) out.push(`${what} ${caps[key]} is above the ceiling of ${max}`);
  };
}

function checkPaths(caps: CapabilitySet, ceiling: Ceiling, out: string[]): void {
  for (const p of caps.paths) {
    if (ceiling.allow_paths === false)
      out.push(`filesystem mount ${p.guest} -> ${p.host} is not allowed (allow_paths: false)`);
    else if (p.mode === 'rw' && ceiling.allow_rw_paths === false)
      out.push(`read-write mount ${p.guest} -> ${p.host} is not allowed (allow_rw_paths: false)`);
    else if (p.mode === 'rw') {
      if (ceiling.max_write_bytes !== undefined && (p.maxBytes ?? Infinity) > ceiling.max_write_bytes) {
        out.push(
          `allowed_paths.${p.guest}.max_bytes ${p.maxBytes ?? 'unlimited'} is above the ceiling of ${ceiling.max_write_bytes} (max_write_bytes)`,
        );
      }
      if (ceiling.max_write_entries !== undefined && (p.maxEntries ?? Infinity) > ceiling.max_write_entries) {
        out.push(
          `allowed_paths.${p.guest}.max_entries ${p.maxEntries ?? 'unlimited'} is above the ceiling of ${ceiling.max_write_entries} (max_write_entries)`,
        );
      }
    }
  }
}

// One check per CapabilitySet key (pinned with `satisfies`), so every capability has a ceiling key.
const CHECKS = {
  hosts: (caps, ceiling, out) => {
    if (ceiling.allowed_hosts === undefined) return;
    const allowed = ceiling.allowed_hosts;
    for (const h of caps.hosts) {
      if (!allowed.some((p) => hostCovered(h, p)))
        out.push(`network host ${h} is outside the allowed hosts [${allowed.join(', ')}]`);
    }
  },
  paths: checkPaths,
  maxPages: limit('maxPages', 'memory.max_pages', (c) => c.max_pages),
  maxHttpResponseBytes: limit(
    'maxHttpResponseBytes',
    'memory.max_http_response_bytes',
    (c) => c.max_http_response_bytes,
  ),
  maxVarBytes: limit('maxVarBytes', 'memory.max_var_bytes', (c) => c.max_var_bytes),
  timeoutMs: limit('timeoutMs', 'timeout_ms', (c) => c.max_timeout_ms),
  maxInputBytes: limit('maxInputBytes', 'max_input_bytes', (c) => c.max_input_bytes),
  maxOutputBytes: limit('maxOutputBytes', 'max_output_bytes', (c) => c.max_output_bytes),
  poolMax: limit('poolMax', 'pool.max', (c) => c.max_pool),
  config: (caps, ceiling, out) => {
    if (ceiling.allowed_config === undefined) return;
    for (const k of Object.keys(caps.config))
      if (!ceiling.allowed_config.includes(k)) out.push(`config key ${k} is not in the allowed config keys`);
  },
  secrets: (caps, ceiling, out) => {
    if (ceiling.allowed_secrets === undefined) return;
    for (const s of caps.secrets)
      if (!ceiling.allowed_secrets.includes(s)) out.push(`secret ${s} is not in the allowed secrets`);
  },
  mcp: (caps, ceiling, out) => {
    if (ceiling.allowed_mcp === undefined) return;
    for (const f of caps.mcp ?? [])
      if (!(ceiling.allowed_mcp as string[]).includes(f))
        out.push(`mcp client feature ${f} is not in the allowed features`);
  },
} satisfies Record<keyof CapabilitySet, Check>;

/** Every way `caps` (and a module of `moduleBytes`) exceeds `ceiling`, in words; empty = within it. */
export function ceilingViolations(caps: CapabilitySet, ceiling: Ceiling, moduleBytes = 0): string[] {
  const out: string[] = [];
  if (ceiling.max_module_bytes !== undefined && moduleBytes > ceiling.max_module_bytes) {
    out.push(`module of ${moduleBytes} bytes is above the ceiling of ${ceiling.max_module_bytes} (max_module_bytes)`);
  }
  for (const check of Object.values(CHECKS) as Check[]) check(caps, ceiling, out);
  return out;
}
