// guard-hosts: a red line on network hosts, over URL/host arguments and the tool's allowed_hosts.
import { z } from 'zod';
import { hostGlob } from '../glob.js';
import { definePolicy } from '../module.js';
import { stringsIn } from '../values.js';

/** host[:port] of a URL-looking or host-looking string. */
export function hostOf(value: string): string | undefined {
  const v = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
    try {
      const u = new URL(v);
      if (u.hostname === '') return undefined;
      return u.port === '' ? u.hostname : `${u.hostname}:${u.port}`;
    } catch {
      return undefined;
    }
  }
  if (/^(?:[a-z0-9-]+\.)+[a-z0-9-]+(?::\d{1,5})?$/i.test(v) || /^localhost(?::\d{1,5})?$/i.test(v)) {
    try {
      const u = new URL(`http://${v}`);
      return u.port === '' ? u.hostname : `${u.hostname}:${u.port}`;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export const guardHosts = definePolicy({
  name: 'guard-hosts',
  config: z
    .strictObject({
      /** Host globs no call may name or be allowed to reach, e.g. 169.254.169.254, *.internal. */
      deny: z.array(z.string().min(1)).min(1).optional(),
      /** When given, every host named or allowed must match one of these. */
      allow: z.array(z.string().min(1)).min(1).optional(),
    })
    .refine((c) => c.deny !== undefined || c.allow !== undefined, { message: 'guard-hosts needs deny, allow or both' }),
  apply(ctx, cfg) {
    const deny = (cfg.deny ?? []).map((g) => ({ glob: g, re: hostGlob(g) }));
    const allow = cfg.allow?.map((g) => hostGlob(g));
    const verdict = (host: string): string | undefined => {
      const bare = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
      const d = deny.find((r) => r.re.test(host) || r.re.test(bare));
      if (d) return `is denied (${d.glob})`;
      if (allow && !allow.some((r) => r.test(host) || r.test(bare))) return 'is not on the allowed host list';
      return undefined;
    };
    ctx.guard(ctx.entryId, (exec, tool) => {
      for (const h of tool.definition.capabilities?.allowedHosts ?? []) {
        const v = verdict(h);
        if (v) return `tool "${tool.name}" may reach ${h}, which ${v} (guard "${ctx.entryId}")`;
      }
      for (const { path, value } of stringsIn(exec.arguments)) {
        const host = hostOf(value);
        if (host === undefined) continue;
        const v = verdict(host);
        if (v) return `argument "${path}" names host ${host}, which ${v} (guard "${ctx.entryId}")`;
      }
      return undefined;
    });
  },
});
