// One call's deadline and cancellation. Every wait in the sandbox races `cancelled`, so the caller is
// answered the moment the deadline passes or the signal aborts, whatever the instance is doing; a
// call on the calling thread, which waits on nothing, is checked by polling instead. When the
// caller's signal carries a deadline its owner (the pipeline's clock) hands down with the time left,
// that owner's timer is the only one: the control arms none and asks the owner once its copy of the
// deadline has passed (architecture.md §3.3).
import { abortStatus, whenAborted, type Abortable } from '../signals/index.js';
import { ToolFailure } from '../tool/index.js';

/**
 * The failure for a caller's signal that aborted (signals/ `abortStatus`: a deadline from whichever
 * layer is TIMEOUT; only the caller's own cancellation is ABORTED), in the reason's words when it has
 * them.
 */
export function callerAbortFailure(reason: unknown): ToolFailure {
  const { code, message } = abortStatus(reason);
  if (message !== undefined) return new ToolFailure(code, message);
  if (code === 'TIMEOUT') return new ToolFailure('TIMEOUT', "the call did not finish within its caller's deadline");
  return new ToolFailure('ABORTED', 'the call was aborted by its caller');
}

const noop = (): void => {};

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
  /** The owner of the deadline the caller's signal carries, when that deadline is the one that binds. */
  readonly #owner: (() => number) | undefined;
  readonly #callerSignal: Abortable;
  // No closure or array is made per call until something waits (watch, onCancel, cancelled): a
  // call on the calling thread makes none (docs/decisions.md, "Per-call work on the calling thread").
  #stopWatching: () => void = noop;
  #cancelled: Promise<never> | undefined;
  #reject: (err: ToolFailure) => void = noop;
  #listeners: ((failure: ToolFailure) => void)[] | undefined;

  /**
   * `timeoutMs` is the sandbox's own bound (the tool's limit, or less); `ownerRemainingMs` the time
   * left on the deadline `callerSignal` carries, read from its owner (reading 0 fires the signal).
   */
  constructor(callerSignal: Abortable, timeoutMs: number, ownerRemainingMs?: () => number) {
    const left = ownerRemainingMs?.();
    const now = performance.now();
    this.#owner = left !== undefined && left <= timeoutMs ? ownerRemainingMs : undefined;
    this.deadline = now + (this.#owner !== undefined && left !== undefined ? left : timeoutMs);
    this.#callerSignal = callerSignal;
    this.#timeoutMs = timeoutMs;
    if (callerSignal.aborted) this.#onAbort();
  }

  #onAbort(): void {
    this.cancel(callerAbortFailure(this.#callerSignal.reason));
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
    this.#owner?.(); // fires the owner's deadline if it has passed
    if (this.#callerSignal.aborted) return this.#onAbort();
    // the owner's timer ends the call through the signal: a second timer would only race it
    if (this.#owner === undefined) {
      const left = this.deadline - performance.now();
      if (left <= 0) return this.expire();
      this.#timer = setTimeout(() => this.expire(), left);
    }
    this.#stopWatching = whenAborted(this.#callerSignal, () => this.#onAbort());
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

  /** The deadline has passed: the owner's TIMEOUT when the owner's deadline binds, else the sandbox's own. */
  expire(): void {
    if (this.#owner !== undefined) {
      // reading the owner's time fires its deadline (and so the signal) once none is left
      if (this.#owner() <= 0 && this.#callerSignal.aborted) this.#onAbort();
      return;
    }
    this.cancel(new ToolFailure('TIMEOUT', `the call did not finish within its ${this.#timeoutMs} ms deadline`));
  }

  /** The time left: the owner's when its deadline binds, else to the sandbox's own. */
  remainingMs(): number {
    return Math.max(0, this.#owner !== undefined ? this.#owner() : this.deadline - performance.now());
  }

  /** Ends the call with `failure` (first one wins) and runs the cancel listeners. */
  cancel(failure: ToolFailure): void {
    if (this.failure) return;
    this.failure = failure;
    this.#reject(failure);
    this.#controller?.abort(failure);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const fn of listeners ?? []) fn(failure);
    this.dispose();
  }

  onCancel(fn: (failure: ToolFailure) => void): () => void {
    this.watch();
    return this.listen(fn);
  }

  /**
   * Like onCancel, without arming: for a caller whose every wait races this control (race()
   * arms it then), so a call that never waits arms nothing (the worker path's polled answer).
   */
  listen(fn: (failure: ToolFailure) => void): () => void {
    if (this.failure) {
      fn(this.failure);
      return () => {};
    }
    const listeners = (this.#listeners ??= []);
    listeners.push(fn);
    return () => {
      const i = listeners.indexOf(fn);
      if (i >= 0) listeners.splice(i, 1);
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
