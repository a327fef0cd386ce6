// Waiting on work that cannot be cancelled itself (a listener, a DNS lookup) only as long as a
// signal allows. A leaf folder: the pipeline and the sandbox both use it, it imports nothing.

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
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

function signalReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}
