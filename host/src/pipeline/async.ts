// Promise helpers that keep a stuck listener or body from stalling a call forever.
import { ToolgateError } from '../errors/index.js';
import { whenAborted } from '../signals/index.js';

/** Thrown inside the pipeline when a listener misbehaves; becomes LISTENER_ERROR. */
export class ListenerError extends ToolgateError<'LISTENER_ERROR'> {
  constructor(message: string) {
    super('LISTENER_ERROR', message);
  }
}

/** Settles with `work`, or rejects with `onTimeout()` after `ms`. */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The one race of work against a signal (host/src/signals), for the pipeline's files. */
export { raceSignal } from '../signals/index.js';

/** Runs `fn` and turns a synchronous throw into a rejection, so one code path handles both. */
export function attempt<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * A signal that aborts when any source does, with the source's reason. Unlike AbortSignal.any,
 * release() detaches it: on Node 20 AbortSignal.any leaves a record on a long-lived source (a
 * server's shutdown signal) for every call, measured at ~57 bytes a call that GC never frees.
 */
export function linkSignals(sources: readonly AbortSignal[]): { signal: AbortSignal; release(): void } {
  const ctl = new AbortController();
  const detach: (() => void)[] = [];
  const release = (): void => {
    for (const d of detach.splice(0)) d();
  };
  for (const src of sources) {
    if (src.aborted) {
      release();
      ctl.abort(src.reason);
      break;
    }
    const onAbort = (): void => {
      release();
      ctl.abort(src.reason);
    };
    detach.push(whenAborted(src, onAbort));
  }
  return { signal: ctl.signal, release };
}
