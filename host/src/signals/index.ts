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

function newWaits(signal: AbortSignal, owned: boolean): Waits {
  const fns = new Set<() => void>();
  const onAbort = (): void => {
    waits.delete(signal);
    for (const f of fns) f();
    fns.clear();
  };
  return { fns, onAbort, owned };
}

/**
 * Runs `fn` once when `signal` aborts (not at all if it already has: check `aborted` first).
 * Returns what stops waiting; calling it after the abort does nothing.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let w = waits.get(signal);
  if (w === undefined) {
    w = newWaits(signal, false);
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

/** An AbortController that only its owner aborts, through `abort` (the first reason stands). */
export interface OwnedAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/**
 * A controller for a signal that a call makes, waits on and drops (a client link's, the call
 * clock's): whenAborted on it adds no 'abort' listener, since `abort` runs the waits itself, right
 * after the signal's own listeners. On Node 20 the first listener on a new AbortSignal costs ~6 µs,
 * and a tools/call chains three such signals (docs/decisions.md, "Per-call CPU").
 */
export function ownedAbort(): OwnedAbort {
  const controller = new AbortController();
  const signal = controller.signal;
  const w = newWaits(signal, true);
  waits.set(signal, w);
  return {
    signal,
    abort(reason?: unknown) {
      if (signal.aborted) return;
      controller.abort(reason);
      w.onAbort();
    },
  };
}

/**
 * Settles with `work`, or rejects with the signal's reason once it aborts. Work that has already
 * settled (or settles within the same turn of the event loop) still wins, so a specific failure
 * raised together with the abort is not replaced by a bare ABORTED.
 */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
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

function signalReason(signal: AbortSignal): unknown {
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
