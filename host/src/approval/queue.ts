// Pending approvals held until someone resolves them by id (the server exposes list/resolve over
// HTTP and the /ui page). A request the pipeline gives up on (timeout, caller cancel) leaves the
// queue as 'cancelled'. Recently ended ids are remembered, so a second answer, or one after the
// request expired, gets a message that says what happened instead of a bare "not found".
// A queue made with `onlyWhileOpen` holds requests only while something that can answer it is
// open (the HTTP server that serves /v1/approvals and /ui); otherwise it says 'unavailable' at
// once, so an ask nobody can see is denied at once instead of at its timeout.
import { randomUUID } from 'node:crypto';
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { approvalSummary, isApprovalOutcome, type ApprovalSummary } from './outcome.js';
import { abortSettlement } from './withdrawn.js';

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

/** Ended ids kept for messages; older ones are forgotten first. */
const REMEMBER_ENDED = 1000;
/** The timer that expires a request fires a little after expiresAt; within this it counts as expiry. */
const EXPIRY_SLACK_MS = 250;

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
  readonly #onlyWhileOpen: boolean;
  #openers = 0;

  constructor(options: { maxPending?: number; onlyWhileOpen?: boolean } = {}) {
    this.#max = options.maxPending ?? 1000;
    this.#onlyWhileOpen = options.onlyWhileOpen === true;
  }

  /**
   * Says that someone can answer from now on (a server lists and resolves over HTTP); the function
   * says they no longer can. Requests already pending stay until answered or ended.
   */
  openForAnswers(): () => void {
    this.#openers++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.#openers--;
    };
  }

  /** Whether a request would be held now (else it is 'unavailable' at once). */
  get answerable(): boolean {
    return !this.#onlyWhileOpen || this.#openers > 0;
  }

  list(): PendingApproval[] {
    return [...this.#pending.values()].map((p) => ({ ...p.item }));
  }

  /**
   * Answers a pending request, naming who answered when known (the audit log records it); false
   * when no request has that id (already answered, expired or never existed: see `ended`).
   */
  resolve(id: string, outcome: ApprovalOutcome, answeredBy?: string): boolean {
    if (!isApprovalOutcome(outcome)) throw new TypeError(`unknown approval outcome ${JSON.stringify(outcome)}`);
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
    const item: PendingApproval = {
      id,
      ...approvalSummary(req),
      createdAt: new Date().toISOString(),
      ...(req.expiresAt !== undefined ? { expiresAt: req.expiresAt } : {}),
    };
    return new Promise<ApprovalOutcome | ApprovalReply>((resolve) => {
      const settle = (o: ApprovalOutcome, by?: string, withdrawn?: string): void => {
        if (!this.#pending.delete(id)) return;
        signal.removeEventListener('abort', onAbort);
        this.#remember(id, item, o, by, withdrawn);
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

  #remember(id: string, item: PendingApproval, outcome: ApprovalOutcome, by: string | undefined, withdrawn: string | undefined): void {
    const now = Date.now();
    const expired = by === undefined && withdrawn === undefined && item.expiresAt !== undefined && now + EXPIRY_SLACK_MS >= Date.parse(item.expiresAt);
    const how = { ...(by !== undefined ? { answeredBy: by } : {}), ...(withdrawn !== undefined ? { withdrawn } : {}) };
    this.#ended.set(id, { outcome, ...how, at: new Date(now).toISOString(), expired });
    if (this.#ended.size > REMEMBER_ENDED) {
      const oldest = this.#ended.keys().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
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
