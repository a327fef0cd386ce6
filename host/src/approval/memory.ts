// An approval service whose answers are scripted: for tests and for embedding without a person.
import type { ApprovalOutcome, ApprovalRequest, ApprovalService } from '../pipeline/index.js';

export type ApprovalAnswer = ApprovalOutcome | 'never';

/**
 * Answers requests from a queue (then `fallback`), recording every request it saw.
 * 'never' leaves the request pending until the pipeline's signal aborts it (timeouts, cancels).
 */
export class InMemoryApprovalService implements ApprovalService {
  readonly requests: ApprovalRequest[] = [];
  readonly #queue: ApprovalAnswer[];
  readonly #fallback: ApprovalAnswer;

  constructor(answers: ApprovalAnswer[] = [], fallback: ApprovalAnswer = 'unavailable') {
    this.#queue = [...answers];
    this.#fallback = fallback;
  }

  answer(...answers: ApprovalAnswer[]): void {
    this.#queue.push(...answers);
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    this.requests.push(req);
    const answer = this.#queue.shift() ?? this.#fallback;
    if (answer !== 'never') return Promise.resolve(answer);
    return new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
}
