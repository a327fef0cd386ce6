// The four answers a channel may give; anything else from outside reads as 'unavailable' (fail closed).
import type { ApprovalOutcome, ApprovalRequest } from '../pipeline/index.js';

export const APPROVAL_OUTCOMES = [
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
] as const satisfies readonly ApprovalOutcome[];

export function isApprovalOutcome(v: unknown): v is ApprovalOutcome {
  return typeof v === 'string' && (APPROVAL_OUTCOMES as readonly string[]).includes(v);
}

/** The outcome of a plain answer or of a reply that also names who answered. */
export function replyOutcome(v: unknown): unknown {
  return typeof v === 'object' && v !== null && 'outcome' in v ? (v as { outcome: unknown }).outcome : v;
}

/** Arguments as a person reads them in a prompt: JSON, cut at `max` characters. */
export function argumentsPreview(args: unknown, max = 2000): string {
  let text: string;
  try {
    text = JSON.stringify(args) ?? 'undefined';
  } catch {
    text = '(unprintable)';
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** What every channel that shows a request elsewhere sends of it: the callback's body, a queue item. */
export interface ApprovalSummary {
  callId: string;
  tool: string;
  agent?: string;
  reason: string;
  decidedBy: string;
  arguments: unknown;
}

export function approvalSummary(req: ApprovalRequest): ApprovalSummary {
  return {
    callId: req.exec.callId,
    tool: req.exec.name,
    ...(req.exec.agent !== undefined ? { agent: req.exec.agent } : {}),
    reason: req.reason,
    decidedBy: req.decidedBy,
    arguments: req.exec.arguments,
  };
}
