// Why a pending approval left the page when this page did not answer it: it expired, someone
// answered elsewhere (another page, the API, the terminal), or its call ended first. The page
// says so in words; a card that silently vanished would leave the person guessing.
import type { EndedApprovalInfo, PendingApprovals } from '../server/index.js';

export interface EndedView {
  id: string;
  outcome: string;
  expired: boolean;
  answeredBy?: string;
  message: string;
}

export function endedNotice(e: EndedApprovalInfo): string {
  if (e.expired) return 'Expired with no answer: the call was denied and did not run.';
  if (e.answeredBy !== undefined) {
    const what = e.outcome === 'allowed-once' ? 'allowed once: the call runs' : 'denied: the call did not run';
    return `Answered by ${e.answeredBy}: ${what}.`;
  }
  return 'Withdrawn before an answer (its caller cancelled it, or the server is stopping): the call did not run.';
}

/** Tracks the pending ids; `gone()` names those that left since the last call, and how they ended. */
export class EndedTracker {
  #ids = new Set<string>();
  readonly #queue: PendingApprovals;

  constructor(queue: PendingApprovals) {
    this.#queue = queue;
    this.#ids = this.#current();
  }

  gone(): EndedView[] {
    const now = this.#current();
    const out: EndedView[] = [];
    for (const id of this.#ids) {
      if (now.has(id)) continue;
      const e = this.#queue.ended?.(id);
      if (e === undefined) continue;
      out.push({
        id,
        outcome: e.outcome,
        expired: e.expired,
        ...(e.answeredBy !== undefined ? { answeredBy: e.answeredBy } : {}),
        message: endedNotice(e),
      });
    }
    this.#ids = now;
    return out;
  }

  #current(): Set<string> {
    const ids = new Set<string>();
    for (const p of this.#queue.list()) {
      const id = typeof p === 'object' && p !== null && 'id' in p ? (p as { id: unknown }).id : undefined;
      if (typeof id === 'string') ids.add(id);
    }
    return ids;
  }
}
