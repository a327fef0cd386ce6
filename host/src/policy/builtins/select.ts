// Shared pieces of the built-ins: which tools an entry applies to, and the zod pieces they share.
import { z } from 'zod';
import type { ExecIdentity, Tool } from '../../tool/index.js';
import type { PolicyContext } from '../module.js';
import { nameMatcher } from '../glob.js';

/** `tools` absent = every tool; present = only tools whose name matches one of the globs. */
export const toolsField = z.array(z.string().min(1)).min(1).optional();

export function appliesTo(tools: readonly string[] | undefined): (name: string) => boolean {
  if (tools === undefined) return () => true;
  return nameMatcher(tools);
}

export type Capability = 'network' | 'fs-read' | 'fs-write' | 'secrets';
export const capabilityField = z.enum(['network', 'fs-read', 'fs-write', 'secrets']);

/** What a tool may touch, read from its host-only capabilities. */
export function hasCapability(tool: Tool, cap: Capability): boolean {
  const c = tool.definition.capabilities;
  if (c === undefined) return false;
  switch (cap) {
    case 'network':
      return c.allowedHosts.length > 0;
    case 'fs-read':
      return Object.keys(c.allowedPaths).length > 0;
    case 'fs-write':
      return Object.values(c.allowedPaths).some((m) => m.mode === 'rw');
    case 'secrets':
      return c.secrets.length > 0;
  }
}

export function by(entryId: string, reason: string | undefined, fallback: string): string {
  return `${reason ?? fallback} (policy "${entryId}")`;
}

/**
 * A red line: a check that denies with DENIED wherever the call is. It runs in the pre-execute
 * chain at its place in the file (so the trail and `policy explain` show which entry decided), and
 * as a guard, so an allow that ended the chain before it reached this entry overturns nothing.
 * A call this entry already cleared in the chain is not checked a second time.
 */
export function redLine(
  ctx: PolicyContext,
  check: (exec: Readonly<ExecIdentity>, tool: Tool) => string | undefined,
): void {
  const cleared = new WeakSet<object>();
  ctx.on('tools/pre-execute', ctx.entryId, (exec, next, info) => {
    const reason = check(exec, info.tool);
    if (reason !== undefined) return { kind: 'deny', reason };
    cleared.add(exec);
    return next();
  });
  ctx.guard(ctx.entryId, (exec, tool) => {
    if (cleared.has(exec)) return undefined;
    const reason = check(exec, tool);
    return reason === undefined ? undefined : { reason, code: 'DENIED' };
  });
}
