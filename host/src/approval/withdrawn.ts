// Why an ask was withdrawn when no one answered it: the client that made the call went away
// (architecture.md §3: an approval lives only as long as the call that asked). Transports abort a
// call with this reason; the queue remembers it, so a late answer is told, and the pipeline's
// trail (the audit record) says it.
import { ToolgateError } from '../errors/index.js';
import type { ApprovalOutcome } from '../pipeline/index.js';
import { AnsweredElsewhere } from './router.js';

export class ClientGone extends ToolgateError<'CLIENT_GONE'> {
  /** `how`: what the transport saw, e.g. "its HTTP request closed before the answer". */
  constructor(how: string) {
    super('CLIENT_GONE', `withdrawn: the client went away (${how})`);
  }
}

/**
 * How a queued ask ends when its wait is aborted: as the answer given on another channel (the
 * terminal), as withdrawn when the client went away, else cancelled. Both queues remember it so a
 * late answer is told.
 */
export function abortSettlement(reason: unknown): {
  outcome: ApprovalOutcome;
  answeredBy: string | undefined;
  withdrawn: string | undefined;
} {
  if (reason instanceof AnsweredElsewhere)
    return {
      outcome: reason.outcome,
      answeredBy: reason.answeredBy ?? 'another approval channel',
      withdrawn: undefined,
    };
  return {
    outcome: 'cancelled',
    answeredBy: undefined,
    withdrawn: reason instanceof ClientGone ? reason.message : undefined,
  };
}
