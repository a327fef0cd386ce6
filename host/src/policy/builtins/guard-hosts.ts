// guard-hosts: a red line on network hosts, over URL/host arguments and the tool's allowed_hosts.
// Rules and hosts are read with the sandbox's own host grammar (host-grammar/), so `127.1`,
// `0x7f.0.0.1`, `2130706433`, `[::ffff:127.0.0.1]` and `LOCALHOST.` are the host the sandbox would
// reach, not text that happens to differ from the rule.
import { z } from 'zod';
import {
  canonicalHost,
  hostPort,
  parseHostPattern,
  parseHostRule,
  ruleCovers,
  ruleOverlaps,
  type HostRule,
  type HostTarget,
} from '../../host-grammar/index.js';
import { definePolicy } from '../module.js';
import { stringsIn, tooManyStrings } from '../values.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
  'ftp:': 21,
};

function urlTarget(text: string): HostTarget | undefined {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return undefined;
  }
  if (u.hostname === '') return undefined;
  const host = canonicalHost(u.hostname);
  if (host === undefined) return undefined;
  // A scheme without a known default port may mean any port.
  const port = u.port !== '' ? Number(u.port) : (DEFAULT_PORTS[u.protocol] ?? 'any');
  return { kind: 'name', host, port };
}

/**
 * `scheme://authority/` of every URL inside a string, nested ones included (`?next=http://...`).
 * Only the authority is read, and it ends at the next `/`, so the scan stays linear in the string
 * however many URLs it holds and however long each is (no cap a padded URL could slip past).
 */
function urlsIn(value: string): string[] {
  const out: string[] = [];
  for (let at = value.indexOf('://'); at >= 0; at = value.indexOf('://', at + 3)) {
    let start = at;
    while (start > 0 && at - start < 32 && /[a-z0-9+.-]/i.test(value[start - 1] ?? '')) start--;
    while (start < at && !/[a-z]/i.test(value[start] ?? '')) start++;
    if (start === at) continue;
    let end = at + 3;
    while (end < value.length && !/[\s"'<>`/?#\\]/.test(value[end] ?? '')) end++;
    out.push(`${value.slice(start, end)}/`);
  }
  return out;
}

/** The hosts a string argument names: URLs anywhere in it, or the whole string as host[:port]. */
export function hostsNamedBy(value: string): HostTarget[] {
  const v = value.trim();
  const targets = urlsIn(v).flatMap((u) => urlTarget(u) ?? []);
  if (targets.length > 0) return targets;
  // A bare word is a word, and a bare number a number: a host needs a dot, brackets, a port or to be localhost.
  if (!/^[^\s/?#@\\]+$/.test(v) || !(/[.[]/.test(v) || /:[0-9]{1,5}$/.test(v) || /^localhost$/i.test(v))) return [];
  const parsed = parseHostPattern(v);
  if (typeof parsed === 'string' || parsed.kind === 'glob') return [];
  return [{ kind: parsed.kind, host: parsed.host, port: parsed.port === 'default' ? 'any' : parsed.port }];
}

const hostRule = z.string().transform((raw, zctx) => {
  const rule = parseHostRule(raw);
  if (typeof rule === 'string') {
    zctx.addIssue({ code: 'custom', message: `host rule ${JSON.stringify(raw)}: ${rule}` });
    return z.NEVER;
  }
  return rule;
});

export const guardHosts = definePolicy({
  name: 'guard-hosts',
  config: z
    .strictObject({
      /** Host rules no call may name or be allowed to reach, e.g. 169.254.169.254, *.internal, 10.0.0.0/8. */
      deny: z.array(hostRule).min(1).optional(),
      /** When given, every host named or allowed must be covered by one of these. */
      allow: z.array(hostRule).min(1).optional(),
    })
    .refine((c) => c.deny !== undefined || c.allow !== undefined, { message: 'guard-hosts needs deny, allow or both' }),
  apply(ctx, cfg) {
    const deny: HostRule[] = cfg.deny ?? [];
    const allow = cfg.allow;
    const verdict = (target: HostTarget): string | undefined => {
      const d = deny.find((r) => ruleOverlaps(r, target));
      if (d) return `is denied (${d.normal})`;
      if (allow && !allow.some((r) => ruleCovers(r, target))) return 'is not on the allowed host list';
      return undefined;
    };
    ctx.guard(ctx.entryId, (exec, tool) => {
      for (const h of tool.definition.capabilities?.allowedHosts ?? []) {
        const pattern = parseHostPattern(h);
        // The sandbox refuses an entry it cannot parse; so does this guard.
        if (typeof pattern === 'string')
          return `tool "${tool.name}" has allowed_hosts entry ${JSON.stringify(h)}, which ${pattern} (guard "${ctx.entryId}")`;
        const v = verdict(pattern);
        if (v) return `tool "${tool.name}" may reach ${h}, which ${v} (guard "${ctx.entryId}")`;
      }
      const strings = stringsIn(exec.arguments);
      if (!strings.complete) return tooManyStrings(`guard "${ctx.entryId}"`);
      for (const { path, value } of strings) {
        for (const target of hostsNamedBy(value)) {
          const v = verdict(target);
          if (v)
            return `argument "${path}" names host ${typeof target.port === 'number' ? hostPort(target.host, target.port) : target.host}, which ${v} (guard "${ctx.entryId}")`;
        }
      }
      return undefined;
    });
  },
});
