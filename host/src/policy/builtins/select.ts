// Shared pieces of the built-ins: which tools an entry applies to, and the zod pieces they share.
import { z } from 'zod';
import type { Tool } from '../../tool/index.js';
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
