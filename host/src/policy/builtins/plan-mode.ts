// plan-mode: while planning, only tools that cannot change anything run. Whether a tool can is read
// from the capabilities the host enforces (an rw mount, any network host), never from annotations:
// those are written by the tool's author, who is not trusted. A guard, so no allow entry can make an
// exception; `except` is the only way.
import { z } from 'zod';
import type { Tool } from '../../tool/index.js';
import { definePolicy } from '../module.js';

/** Why a tool may change something, from what the sandbox grants it; undefined = it cannot. */
export function writeReach(tool: Tool): string | undefined {
  const caps = tool.definition.capabilities;
  if (caps === undefined) {
    // A native tool is the embedder's own code, not an untrusted author's: its hint is the host's word.
    return tool.definition.annotations?.readOnlyHint === true
      ? undefined
      : 'is a native tool not marked readOnlyHint by its host';
  }
  const rw = Object.entries(caps.allowedPaths).find(([, m]) => m.mode === 'rw');
  if (rw !== undefined) return `mounts ${rw[0]} read-write`;
  if (caps.allowedHosts.length > 0) return `may reach the network (${caps.allowedHosts.join(', ')})`;
  return undefined;
}

export const planMode = definePolicy({
  name: 'plan-mode',
  config: z.strictObject({ except: z.array(z.string().min(1)).optional() }).default({}),
  apply(ctx, cfg) {
    const except = new Set(cfg.except ?? []);
    ctx.guard(ctx.entryId, (_exec, tool) => {
      if (except.has(tool.name)) return undefined;
      const why = writeReach(tool);
      return why === undefined
        ? undefined
        : `plan mode: only tools that cannot change anything run, and "${tool.name}" ${why} (guard "${ctx.entryId}")`;
    });
  },
});
