// Waiting on work that cannot be cancelled itself (a listener, a DNS lookup) only as long as a
// signal allows, and what an abort means. A leaf folder: the pipeline and the sandbox both use it;
// it imports only errors/.
import { ERROR_CODES_BY_PART, ToolgateError, type CodeOf } from '../errors/index.js';

/**
 * The waits on each signal. A signal has one 'abort' listener however many waits it has at once:
 * on Node 20 adding and removing a listener on an AbortSignal costs a few µs each (more before the
 * JIT has warmed), and one call waits on the same signal four or five times. The listener goes
 * when the last wait stops, so a long-lived signal never collects listeners. An owned signal
 * (ownedAbort) has no listener at all: its owner runs the waits when it aborts it.
 */
interface Waits {
  readonly fns: Set<() => void>;
  readonly onAbort: () => void;
  readonly owned: boolean;
}
const waits = new WeakMap<AbortSignal, Waits>();

/** The waits on a signal nobody here owns: one 'abort' listener runs them all. */
function newWaits(signal: AbortSignal): Waits {
  const fns = new Set<() => void>();
  const onAbort = (): void => {
    waits.delete(signal);
    for (const f of fns) f();
    fns.clear();
  };
  return { fns, onAbort, owned: false };
}

/**
 * Runs `fn` once when `signal` aborts (not at all if it already has: check `aborted` first).
 * Returns what stops waiting; calling it after the abort does nothing.
 */
export function whenAborted(signal: Abortable, fn: () => void): () => void {
  if (signal instanceof LazyAbort) return signal.onAbort(fn);
  let w = waits.get(signal);
  if (w === undefined) {
    w = newWaits(signal);
    waits.set(signal, w);
    signal.addEventListener('abort', w.onAbort, { once: true });
  }
  const mine = w;
  mine.fns.add(fn);
  return () => {
    if (!mine.fns.delete(fn) || mine.fns.size > 0 || mine.owned) return;
    if (waits.get(signal) === mine) waits.delete(signal);
    signal.removeEventListener('abort', mine.onAbort);
  };
}

/**
 * What the call's own code reads of a cancellation: a signal, or a LazyAbort, whose AbortSignal is
 * made only when someone asks for it. Both answer `aborted` and `reason`; whenAborted and
 * raceSignal take either.
 */
export type Abortable = AbortSignal | LazyAbort;

/**
 * An AbortController that only its owner aborts, through `abort` (the first reason stands), whose
 * AbortSignal is made on first use. On Node 20 making an AbortSignal costs
 * 5-8 µs (an EventTarget whose prototype is swapped afterwards), about the same again in garbage
 * collection, and a warm stdio call made two that nothing but the call's own code read
 * (docs/decisions.md, "Server CPU per call, sixth round"). Waits on it (whenAborted, raceSignal)
 * are run by `abort`, right after the signal's own listeners when the signal was made.
 */
export class LazyAbort {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  readonly #fns = new Set<() => void>();

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** The AbortSignal, made now if nobody asked for it yet; whenAborted on it adds no listener. */
  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    const signal = controller.signal;
    if (this.#aborted) controller.abort(this.#reason);
    else waits.set(signal, { fns: this.#fns, onAbort: () => waits.delete(signal), owned: true });
    return signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    // what AbortController.abort() gives a signal aborted without a reason
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const controller = this.#controller;
    if (controller !== undefined) {
      controller.abort(this.#reason);
      waits.delete(controller.signal);
    }
    for (const f of this.#fns) f();
    this.#fns.clear();
  }

  /** whenAborted for this: `fn` runs once on `abort`; returns what stops waiting. */
  onAbort(fn: () => void): () => void {
    const fns = this.#fns;
    fns.add(fn);
    return () => void fns.delete(fn);
  }
}

/**
 * A controller for a signal that a call makes, waits on and drops (a client link's, the call
 * clock's): whenAborted on it adds no 'abort' listener, since `abort` runs the waits itself, right
 * after the signal's own listeners. On Node 20 the first listener on a new AbortSignal costs ~6 µs,
 * and a tools/call chains three such signals (docs/decisions.md, "Per-call CPU"). The signal itself
 * is made on first use (LazyAbort).
 */
export function ownedAbort(): LazyAbort {
  return new LazyAbort();
}

/**
 * Settles with `work`, or rejects with the signal's reason once it aborts. Work that has already
 * settled (or settles within the same turn of the event loop) still wins, so a specific failure
 * raised together with the abort is not replaced by a bare ABORTED.
 */
export function raceSignal<T>(work: Promise<T>, signal: Abortable): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      setImmediate(() => reject(signalReason(signal)));
    };
    let stop: () => void = () => {};
    work.then(
      (v) => {
        stop();
        resolve(v);
      },
      (err: unknown) => {
        stop();
        reject(err);
      },
    );
    if (signal.aborted) onAbort();
    else stop = whenAborted(signal, onAbort);
  });
}

function signalReason(signal: Abortable): unknown {
  return signal.reason ?? new Error('aborted');
}

/**
 * What an abort reason stands for, as a call's result reads it: the one mapping every layer uses
 * (architecture.md §3.3). A toolgate error carrying a call's code keeps it and its words (the
 * pipeline clock's TIMEOUT, a shutdown's ABORTED); AbortSignal.timeout's TimeoutError is TIMEOUT;
 * anything else is the caller's own cancellation, ABORTED, which each layer words itself
 * (`message` is then undefined).
 */
export function abortStatus(reason: unknown): { code: CodeOf<'call'>; message: string | undefined } {
  if (reason instanceof ToolgateError && isCallCode(reason.code)) return { code: reason.code, message: reason.message };
  if (reason instanceof Error && reason.name === 'TimeoutError') return { code: 'TIMEOUT', message: undefined };
  return { code: 'ABORTED', message: undefined };
}

const CALL_CODES: ReadonlySet<string> = new Set(ERROR_CODES_BY_PART.call);
function isCallCode(code: string): code is CodeOf<'call'> {
  return CALL_CODES.has(code);
}
