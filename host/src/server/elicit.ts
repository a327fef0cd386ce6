// An `ask` decision as an MCP elicitation form: the person sees the tool, the reason and what the
// call would do, and answers accept (this call only) or decline.
import type { ApprovalOutcome, ApprovalRequest } from '../pipeline/index.js';
import { spellHidden } from '../terminal/index.js';

/** Long arguments are cut: the form is for a person, and the whole value may be huge. */
const SUMMARY_CHARS = 600;

export function argumentSummary(args: unknown, sensitive: boolean): string {
  if (typeof args !== 'object' || args === null) return '(none)';
  const keys = Object.keys(args);
  if (keys.length === 0) return '(none)';
  // A tool that marks its arguments sensitive keeps them out of logs; a form is no different.
  if (sensitive) return `${keys.join(', ')} (values hidden: this tool's arguments are sensitive)`;
  const text = JSON.stringify(args);
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}… (${text.length} characters)` : text;
}

export interface ElicitForm {
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, never> };
}

export function approvalForm(req: ApprovalRequest, sensitive: boolean): ElicitForm {
  // The client shows this to a person: every hidden character of the arguments is spelled out.
  const message = spellHidden(
    [
      `toolgate: allow the tool "${req.exec.name}" to run this once?`,
      `Reason: ${req.reason}`,
      `Arguments: ${argumentSummary(req.exec.arguments, sensitive)}`,
      'Accept allows this call only; decline denies it.',
    ].join('\n'),
  );
  // No fields: the answer is the action itself (accept / decline / cancel).
  return { message, requestedSchema: { type: 'object', properties: {} } };
}

export function outcomeOf(action: 'accept' | 'decline' | 'cancel'): ApprovalOutcome {
  if (action === 'accept') return 'allowed-once';
  return action === 'decline' ? 'rejected' : 'cancelled';
}
