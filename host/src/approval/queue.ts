// Pending approvals held until someone resolves them by id (the server exposes list/resolve over
// HTTP). A request the pipeline gives up on (timeout, caller cancel) leaves the queue as 'cancelled'.
import { randomUUID } from 'node:crypto';
import type { ApprovalOutcome, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { isApprovalOutcome } from './outcome.js';

export interface PendingApproval {
  id: string;
  callId: string;
  tool: string;
  agent?: string;
  reason: string;
  decidedBy: string;
  arguments: unknown;
  createdAt: string;
}

export class ApprovalQueue implements ApprovalService {
  readonly #pending = new Map<string, { item: PendingApproval; settle: (o: ApprovalOutcome) => void }>();
  readonly #listeners = new Set<(pending: readonly PendingApproval[]) => void>();
  readonly #max: number;

  constructor(options: { maxPending?: number } = {}) {
    this.#max = options.maxPending ?? 1000;
  }

  list(): PendingApproval[] {
    return [...this.#pending.values()].map((p) => ({ ...p.item }));
  }

  /** Answers a pending request; false when no request has that id (already answered or gone). */
  resolve(id: string, outcome: ApprovalOutcome): boolean {
    if (!isApprovalOutcome(outcome)) throw new TypeError(`unknown approval outcome ${JSON.stringify(outcome)}`);
    const p = this.#pending.get(id);
    if (!p) return false;
    p.settle(outcome);
    return true;
  }

  /** Called with the pending list whenever it changes; the function unsubscribes. */
  onChange(fn: (pending: readonly PendingApproval[]) => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    if (signal.aborted) return Promise.resolve('cancelled');
    // A full queue is nobody listening: deny rather than grow without bound.
    if (this.#pending.size >= this.#max) return Promise.resolve('unavailable');
    const id = randomUUID();
    const item: PendingApproval = {
      id,
      callId: req.exec.callId,
      tool: req.exec.name,
      ...(req.exec.agent !== undefined ? { agent: req.exec.agent } : {}),
      reason: req.reason,
      decidedBy: req.decidedBy,
      arguments: req.exec.arguments,
      createdAt: new Date().toISOString(),
    };
    return new Promise<ApprovalOutcome>((resolve) => {
      const settle = (o: ApprovalOutcome): void => {
        if (!this.#pending.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        this.#emit();
        resolve(o);
      };
      const onAbort = (): void => settle('cancelled');
      this.#pending.set(id, { item, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.#emit();
    });
  }

  #emit(): void {
    const snapshot = this.list();
    for (const fn of this.#listeners) {
      try {
        fn(snapshot);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
