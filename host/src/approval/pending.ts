// What the in-process queue (queue.ts) and the replicas' shared one (shared-queue.ts) have in
// common: the shapes of a pending and an ended ask, who can answer now (openForAnswers and the
// `answerable` rule), the check of an answer's outcome, and how an ended record is written.
import type { ApprovalOutcome, ApprovalRequest } from '../pipeline/index.js';
import { approvalSummary, isApprovalOutcome, type ApprovalSummary } from './outcome.js';

/** A request waiting in the queue: its summary, the id it is answered by, and when it came. */
export interface PendingApproval extends ApprovalSummary {
  id: string;
  createdAt: string;
  /** When the pipeline stops waiting and denies the call. */
  expiresAt?: string;
}

/** How a request that is no longer pending ended. */
export interface EndedApproval {
  outcome: ApprovalOutcome;
  answeredBy?: string;
  at: string;
  /** True when it ended because its time ran out (no one answered). */
  expired: boolean;
  /** Why it was withdrawn unanswered, when the client that asked went away. */
  withdrawn?: string;
}

/** The timer that expires a request fires a little after expiresAt; within this it counts as expiry. */
const EXPIRY_SLACK_MS = 250;

/**
 * Who can answer a queue now. A queue made `onlyWhileOpen` holds requests only while something
 * that can answer them is open (the HTTP server that serves /v1/approvals and /ui); otherwise an
 * ask is 'unavailable' at once, denied now rather than at its timeout.
 */
export class Answerers {
  readonly #onlyWhileOpen: boolean;
  #open = 0;

  constructor(onlyWhileOpen: boolean) {
    this.#onlyWhileOpen = onlyWhileOpen;
  }

  /** Someone can answer from now on; the function says they no longer can (once, however often called). */
  open(): () => void {
    this.#open++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#open--;
    };
  }

  /** Whether anyone has it open (a shared queue polls only then). */
  get watching(): boolean {
    return this.#open > 0;
  }

  /** Whether a request would be held now. */
  get answerable(): boolean {
    return !this.#onlyWhileOpen || this.#open > 0;
  }
}

/** An answer's outcome, checked: resolve takes only the four outcomes (a TypeError names another). */
export function checkedOutcome(outcome: ApprovalOutcome): ApprovalOutcome {
  if (!isApprovalOutcome(outcome)) throw new TypeError(`unknown approval outcome ${JSON.stringify(outcome)}`);
  return outcome;
}

/** A new ask as the queue lists it. */
export function pendingItem(id: string, req: ApprovalRequest): PendingApproval {
  return {
    id,
    ...approvalSummary(req),
    createdAt: new Date().toISOString(),
    ...(req.expiresAt !== undefined ? { expiresAt: req.expiresAt } : {}),
  };
}

/** How `item` ended: answered (by), withdrawn, or, unanswered at its deadline, expired. */
export function endedRecord(
  item: PendingApproval,
  outcome: ApprovalOutcome,
  by: string | undefined,
  withdrawn: string | undefined,
): EndedApproval {
  const now = Date.now();
  const expired =
    by === undefined &&
    withdrawn === undefined &&
    item.expiresAt !== undefined &&
    now + EXPIRY_SLACK_MS >= Date.parse(item.expiresAt);
  return {
    outcome,
    ...(by !== undefined ? { answeredBy: by } : {}),
    ...(withdrawn !== undefined ? { withdrawn } : {}),
    at: new Date(now).toISOString(),
    expired,
  };
}

/** Ended ids kept for messages; older ones are forgotten first. */
const REMEMBER_ENDED = 1000;

/** Remembers how `id` ended, forgetting the oldest past the bound. */
export function rememberEnded(ended: Map<string, EndedApproval>, id: string, record: EndedApproval): void {
  ended.set(id, record);
  while (ended.size > REMEMBER_ENDED) {
    const oldest = ended.keys().next().value;
    if (oldest === undefined) break;
    ended.delete(oldest);
  }
}

/** Tells each listener the pending list; a listener's failure is its own. */
export function emitPending(
  listeners: Iterable<(pending: readonly PendingApproval[]) => void>,
  snapshot: readonly PendingApproval[],
): void {
  for (const fn of listeners) {
    try {
      fn(snapshot);
    } catch {
      // its own
    }
  }
}
