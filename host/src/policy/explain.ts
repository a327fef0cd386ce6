// How `toolgate policy explain` prints a decision: the outcome, who decided and why, then the
// chain step by step (the loader's own pinning step is left out; it never decides).
import type { Explanation } from '../pipeline/index.js';
import { PIN_ID } from './pin-id.js';

export function formatExplanation(e: Explanation): string {
  const lines: string[] = [];
  lines.push(`tool:       ${e.tool}`);
  lines.push(`outcome:    ${e.outcome}${e.code !== undefined ? ` (${e.code})` : ''}`);
  if (e.reason !== undefined) lines.push(`reason:     ${e.reason}`);
  const t = e.trail;
  if (t.decidedBy !== null) lines.push(`decided by: ${t.decidedBy}`);
  const steps = t.steps.filter((s) => s.id !== PIN_ID);
  if (steps.length > 0) {
    lines.push('pre-execute chain:');
    const width = Math.max(...steps.map((s) => s.id.length));
    steps.forEach((s, i) =>
      lines.push(`  ${i + 1}. ${s.id.padEnd(width)}  ${s.kind}${s.reason !== undefined ? `  ${s.reason}` : ''}`),
    );
  } else {
    lines.push('pre-execute chain: (no policy listeners; the default is allow)');
  }
  if (t.guard) lines.push(`guard:      ${t.guard.id}: ${t.guard.reason}`);
  if (e.sandbox !== undefined)
    lines.push(
      `sandbox:    note: ${e.sandbox} if the tool acts on it (the call itself is ${e.outcome === 'ask' ? 'asked' : 'allowed'}; the manifest's limits hold inside it)`,
    );
  return `${lines.join('\n')}\n`;
}
