// Waiting on work that cannot be cancelled itself (a listener, a DNS lookup) only as long as a
// signal allows. A leaf folder: the pipeline and the sandbox both use it, it imports nothing.

/**
 * The waits on each signal. A signal gets one 'abort' listener however many waits it has: on Node
 * 20 adding and removing a listener on an AbortSignal costs a few µs each (more before the JIT has
 * warmed), and one call waits on the same signal four or five times.
 */
const waits = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` once when `signal` aborts (not at all if it already has: check `aborted` first).
 * Returns what stops waiting; calling it after the abort does nothing.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let set = waits.get(signal);
  if (set === undefined) {
    const fresh = new Set<() => void>();
    waits.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        waits.delete(signal);
        for (const f of fresh) f();
        fresh.clear();
      },
      { once: true },
    );
    set = fresh;
  }
  const mine = set;
  mine.add(fn);
  return () => void mine.delete(fn);
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
