// Promise helpers that keep a stuck listener or body from stalling a call forever.
import { ToolFailure, type ErrorCode } from '../tool/index.js';

/** Thrown inside the pipeline when a listener misbehaves; becomes LISTENER_ERROR. */
export class ListenerError extends Error {
  readonly code = 'LISTENER_ERROR' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ListenerError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unprintable error';
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

/** Settles with `work`, or rejects with the signal's reason the moment it aborts. */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signalReason(signal));
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signalReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  });
}

function signalReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/** The stable code an abort reason stands for: a ToolFailure's own, TIMEOUT for timeouts, else ABORTED. */
export function abortCode(reason: unknown): ErrorCode {
  if (reason instanceof ToolFailure) return reason.code;
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'TIMEOUT';
  return 'ABORTED';
}

/** Runs `fn` and turns a synchronous throw into a rejection, so one code path handles both. */
export function attempt<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
