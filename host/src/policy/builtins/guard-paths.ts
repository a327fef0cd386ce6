// guard-paths: a red line on paths. Guards run after the pre-execute decision and can only deny,
// so no allow entry, in any order, can let a call name (or a tool mount) a protected path.
import { homedir } from 'node:os';
import { posix } from 'node:path';
import { z } from 'zod';
import type { Tool } from '../../tool/index.js';
import { pathGlob, staticPrefix } from '../glob.js';
import { definePolicy } from '../module.js';
import { stringsIn, tooManyStrings } from '../values.js';

const HOME = homedir().replace(/\\/g, '/');

function expandHome(p: string): string {
  return p === '~' ? HOME : p.startsWith('~/') ? `${HOME}${p.slice(1)}` : p;
}

/** Absolute, `..`-free spelling of a path-looking string, or undefined when it is not a path. */
export function pathOf(value: string): string | undefined {
  let v = value.trim().replace(/\\/g, '/');
  if (/^file:\/\//i.test(v)) {
    try {
      v = decodeURIComponent(new URL(v).pathname);
    } catch {
      return undefined;
    }
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return undefined;
  if (v === '' || /\s{2,}|\n/.test(v)) return undefined;
  v = expandHome(v);
  if (!(v.startsWith('/') || v.startsWith('./') || v.startsWith('../') || v.startsWith('.') || v.includes('/')))
    return undefined;
  return posix.normalize(v);
}

function isInside(child: string, parent: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || child.startsWith(`${parent}/`);
}

export const guardPaths = definePolicy({
  name: 'guard-paths',
  config: z.strictObject({
    /** Globs of paths no call may name or mount, e.g. /etc/**, ~/.ssh/**, **\/.env*. */
    deny: z.array(z.string().min(1)).min(1),
    /** Also refuse tools whose allowed_paths mount a denied path or a folder above one. Default true. */
    mounts: z.boolean().default(true),
  }),
  apply(ctx, cfg) {
    const rules = cfg.deny.map((g) => {
      const glob = expandHome(g);
      // a deny list: a glob also covers what lies beneath what it names (a/.env/keys under **/.env*)
      return { glob: g, re: pathGlob(glob, { beneath: true }), prefix: staticPrefix(glob) };
    });
    const hit = (p: string): string | undefined =>
      rules.find((r) => r.re.test(p) || (p.startsWith('/') && r.re.test(p.slice(1))))?.glob;
    const mountHit = (tool: Tool): string | undefined => {
      const mounts = tool.definition.capabilities?.allowedPaths ?? {};
      for (const [guest, m] of Object.entries(mounts)) {
        const host = pathOf(m.host) ?? m.host;
        const abs = host.startsWith('/') ? host : posix.normalize(`/${host}`);
        for (const r of rules) {
          // A mount of /etc/ssh under a deny of /etc/**, or of / above it, exposes the denied files.
          if (
            r.re.test(abs) ||
            (r.prefix.startsWith('/') && isInside(r.prefix, abs)) ||
            (r.prefix.startsWith('/') && isInside(abs, r.prefix))
          ) {
            return `tool "${tool.name}" mounts ${guest} from ${m.host}, which covers ${r.glob}`;
          }
        }
      }
      return undefined;
    };
    ctx.guard(ctx.entryId, (exec, tool) => {
      if (cfg.mounts) {
        const m = mountHit(tool);
        if (m) return `${m} (guard "${ctx.entryId}")`;
      }
      const mounts = Object.entries(tool.definition.capabilities?.allowedPaths ?? {});
      const strings = stringsIn(exec.arguments);
      if (!strings.complete) return tooManyStrings(`guard "${ctx.entryId}"`);
      for (const { path, value } of strings) {
        const p = pathOf(value);
        if (p === undefined) continue;
        // A guest path also stands for the host file behind it.
        const spelled = [p];
        for (const [guest, m] of mounts) {
          const g = posix.normalize(guest);
          if (isInside(p, g)) spelled.push(posix.normalize(`${m.host.replace(/\\/g, '/')}/${p.slice(g.length)}`));
        }
        for (const s of spelled) {
          const glob = hit(s);
          if (glob !== undefined) return `argument "${path}" names a protected path (${glob}) (guard "${ctx.entryId}")`;
        }
      }
      return undefined;
    });
  },
});
