// One call's deadline and cancellation. Every wait in the sandbox races `cancelled`, so the caller is
// answered the moment the deadline passes or the signal aborts, whatever the instance is doing; a
// call on the calling thread, which waits on nothing, is checked by polling instead.
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

/**
 * One call's deadline and cancellation. Its timer and its listener on the caller's signal are armed
 * only once something waits on the call (race, onCancel, cancelled, signal): a call that runs on
 * the calling thread waits on nothing, and its fuel check polls the control instead (poll). Measured
 * on a 1.2 ms in-thread call (bench section 12): the timer and the listener set and cleared around
 * every call cost 30-60 µs of it, much more than the few µs they take alone (docs/decisions.md).
 */
export class CallControl {
  readonly deadline: number;
  /** Aborted together with the call: handed to host-side work done for the module (HTTP). */
  get signal(): AbortSignal {
    // made on first use: most calls never do host-side I/O
    this.#controller ??= new AbortController();
    if (this.failure && !this.#controller.signal.aborted) this.#controller.abort(this.failure);
    this.watch();
    return this.#controller.signal;
  }
  failure: ToolFailure | undefined;

  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #watching = false;
  #disposed = false;
  readonly #timeoutMs: number;
  readonly #callerSignal: AbortSignal;
  readonly #onAbort = (): void => this.cancel(callerAbortFailure(this.#callerSignal.reason));
  #stopWatching: () => void = () => {};
  #cancelled: Promise<never> | undefined;
  #reject: (err: ToolFailure) => void = () => {};
  readonly #listeners: ((failure: ToolFailure) => void)[] = [];

  constructor(callerSignal: AbortSignal, timeoutMs: number) {
    this.deadline = performance.now() + timeoutMs;
    this.#callerSignal = callerSignal;
    this.#timeoutMs = timeoutMs;
    if (callerSignal.aborted) this.#onAbort();
  }

  /** Rejects with the TIMEOUT / ABORTED failure; never resolves. Arms the deadline and the signal. */
  get cancelled(): Promise<never> {
    if (this.#cancelled === undefined) {
      this.#cancelled = new Promise<never>((_, reject) => {
        this.#reject = reject;
      });
      this.#cancelled.catch(() => {}); // observed through race(); never an unhandled rejection
      if (this.failure) this.#reject(this.failure);
      else this.watch();
    }
    return this.#cancelled;
  }

  /**
   * Arms the deadline timer and the listener on the caller's signal (once), so a wait is ended the
   * moment either fires. Until then nothing reports them but poll().
   */
  watch(): void {
    if (this.#watching || this.#disposed || this.failure) return;
    this.#watching = true;
    if (this.#callerSignal.aborted) return this.#onAbort();
    const left = this.deadline - performance.now();
    if (left <= 0) return this.expire();
    this.#timer = setTimeout(() => this.expire(), left);
    this.#stopWatching = whenAborted(this.#callerSignal, this.#onAbort);
  }

  /**
   * The call's failure, first noticing what no armed timer or listener may have reported yet: the
   * caller's abort, and (given the time) a passed deadline. The calling thread's fuel check uses it.
   */
  poll(now?: number): ToolFailure | undefined {
    if (this.failure === undefined) {
      if (this.#callerSignal.aborted) this.#onAbort();
      else if (now !== undefined && now >= this.deadline) this.expire();
    }
    return this.failure;
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
    this.watch();
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
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#stopWatching();
  }
}
