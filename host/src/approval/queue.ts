// Pending approvals held until someone resolves them by id (the server exposes list/resolve over
// HTTP and the /ui page). A request the pipeline gives up on (timeout, caller cancel) leaves the
// queue as 'cancelled'. Recently ended ids are remembered, so a second answer, or one after the
// request expired, gets a message that says what happened instead of a bare "not found".
// A queue made with `onlyWhileOpen` holds requests only while something that can answer it is
// open (pending.ts, Answerers).
import { randomUUID } from 'node:crypto';
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import {
  Answerers,
  checkedOutcome,
  emitPending,
  endedRecord,
  pendingItem,
  rememberEnded,
  type EndedApproval,
  type PendingApproval,
} from './pending.js';
import { abortSettlement } from './withdrawn.js';

export type { EndedApproval, PendingApproval } from './pending.js';

/**
 * The queue a person answers over HTTP and /ui: this process's (ApprovalQueue, the default) or the
 * replicas' shared one (SharedApprovalQueue, `serve --state`).
 */
export interface PendingQueue extends ApprovalService {
  readonly answerable: boolean;
  openForAnswers(): () => void;
  list(): PendingApproval[];
  resolve(id: string, outcome: ApprovalOutcome, answeredBy?: string): boolean | Promise<boolean>;
  ended(id: string): EndedApproval | undefined;
  onChange(fn: (pending: readonly PendingApproval[]) => void): () => void;
}

export class ApprovalQueue implements PendingQueue {
  readonly #pending = new Map<string, { item: PendingApproval; settle: (o: ApprovalOutcome, by?: string) => void }>();
  readonly #ended = new Map<string, EndedApproval>();
  readonly #listeners = new Set<(pending: readonly PendingApproval[]) => void>();
  readonly #max: number;
  readonly #answerers: Answerers;

  constructor(options: { maxPending?: number; onlyWhileOpen?: boolean } = {}) {
    this.#max = options.maxPending ?? 1000;
    this.#answerers = new Answerers(options.onlyWhileOpen === true);
  }

  /**
   * Says that someone can answer from now on (a server lists and resolves over HTTP); the function
   * says they no longer can. Requests already pending stay until answered or ended.
   */
  openForAnswers(): () => void {
    return this.#answerers.open();
  }

  /** Whether a request would be held now (else it is 'unavailable' at once). */
  get answerable(): boolean {
    return this.#answerers.answerable;
  }

  list(): PendingApproval[] {
    return [...this.#pending.values()].map((p) => ({ ...p.item }));
  }

  /**
   * Answers a pending request, naming who answered when known (the audit log records it); false
   * when no request has that id (already answered, expired or never existed: see `ended`).
   */
  resolve(id: string, outcome: ApprovalOutcome, answeredBy?: string): boolean {
    checkedOutcome(outcome);
    const p = this.#pending.get(id);
    if (!p) return false;
    p.settle(outcome, answeredBy);
    return true;
  }

  /** How the request `id` ended, while it is remembered; undefined if it never existed or is forgotten. */
  ended(id: string): EndedApproval | undefined {
    const e = this.#ended.get(id);
    return e === undefined ? undefined : { ...e };
  }

  /** Called with the pending list whenever it changes; the function unsubscribes. */
  onChange(fn: (pending: readonly PendingApproval[]) => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    if (signal.aborted) return Promise.resolve('cancelled');
    if (!this.answerable) return Promise.resolve('unavailable');
    // A full queue is nobody listening: deny rather than grow without bound.
    if (this.#pending.size >= this.#max) return Promise.resolve('unavailable');
    const id = randomUUID();
    const item = pendingItem(id, req);
    return new Promise<ApprovalOutcome | ApprovalReply>((resolve) => {
      const settle = (o: ApprovalOutcome, by?: string, withdrawn?: string): void => {
        if (!this.#pending.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        rememberEnded(this.#ended, id, endedRecord(item, o, by, withdrawn));
        this.#emit();
        resolve(by === undefined ? o : { outcome: o, answeredBy: by });
      };
      // Answered on another channel (the terminal): remembered as that answer, so a late answer
      // here is told who answered; the client going away is remembered as such; any other abort is a cancel.
      const onAbort = (): void => {
        const end = abortSettlement(signal.reason);
        settle(end.outcome, end.answeredBy, end.withdrawn);
      };
      this.#pending.set(id, { item, settle });
      signal.addEventListener('abort', onAbort, { once: true });
      this.#emit();
    });
  }

  #emit(): void {
    emitPending(this.#listeners, this.list());
  }
}
