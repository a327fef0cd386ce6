// One call's deadline and cancellation. Every wait in the sandbox races `cancelled`, so the caller is
// answered the moment the deadline passes or the signal aborts, whatever the instance is doing.
import { whenAborted } from '../signals/index.js';
import { ToolFailure } from '../tool/index.js';

/**
 * The failure for a caller's signal that aborted. A signal aborted by a deadline (the pipeline's
 * TIMEOUT for the tool's timeoutMs, or AbortSignal.timeout's TimeoutError) is a TIMEOUT: a deadline
 * from whichever layer is reported as one; only the caller's own cancellation is ABORTED.
 */
export function callerAbortFailure(reason: unknown): ToolFailure {
  if (reason instanceof ToolFailure && reason.code === 'TIMEOUT') return new ToolFailure('TIMEOUT', reason.message);
  if (reason instanceof Error && reason.name === 'TimeoutError') return new ToolFailure('TIMEOUT', 'the call did not finish within its caller\'s deadline');
  return new ToolFailure('ABORTED', 'the call was aborted by its caller');
}

export class CallControl {
  readonly deadline: number;
  /** Rejects with the TIMEOUT / ABORTED failure; never resolves. */
  readonly cancelled: Promise<never>;
  /** Aborted together with the call: handed to host-side work done for the module (HTTP). */
  get signal(): AbortSignal {
    // made on first use: most calls never do host-side I/O
    this.#controller ??= new AbortController();
    if (this.failure && !this.#controller.signal.aborted) this.#controller.abort(this.failure);
    return this.#controller.signal;
  }
  failure: ToolFailure | undefined;

  #controller: AbortController | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #timeoutMs: number;
  readonly #callerSignal: AbortSignal;
  readonly #onAbort = (): void => this.cancel(callerAbortFailure(this.#callerSignal.reason));
  #stopWatching: () => void = () => {};
  #reject: (err: ToolFailure) => void = () => {};
  readonly #listeners: ((failure: ToolFailure) => void)[] = [];

  constructor(callerSignal: AbortSignal, timeoutMs: number) {
    this.deadline = performance.now() + timeoutMs;
    this.#callerSignal = callerSignal;
    this.cancelled = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.cancelled.catch(() => {}); // observed through race(); never an unhandled rejection
    this.#timeoutMs = timeoutMs;
    this.#timer = setTimeout(() => this.expire(), timeoutMs);
    if (callerSignal.aborted) this.#onAbort();
    else this.#stopWatching = whenAborted(callerSignal, this.#onAbort);
  }

  /** The deadline has passed. */
  expire(): void {
    this.cancel(new ToolFailure('TIMEOUT', `the call did not finish within its ${this.#timeoutMs} ms deadline`));
  }

  remainingMs(): number {
    return Math.max(0, this.deadline - performance.now());
  }

  /** Ends the call with `failure` (first one wins) and runs the cancel listeners. */
  cancel(failure: ToolFailure): void {
    if (this.failure) return;
    this.failure = failure;
    this.#reject(failure);
    this.#controller?.abort(failure);
    for (const fn of this.#listeners.splice(0)) fn(failure);
    this.dispose();
  }

  onCancel(fn: (failure: ToolFailure) => void): () => void {
    if (this.failure) {
      fn(this.failure);
      return () => {};
    }
    this.#listeners.push(fn);
    return () => {
      const i = this.#listeners.indexOf(fn);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.cancelled]);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#stopWatching();
  }
}
