// The shared base of toolgate's errors and the one way to turn anything thrown into a message.
// A leaf folder: every other folder may import it, it imports nothing of host/src.
import type { ToolgateErrorCode } from './codes.js';

export { ERROR_CODES_BY_PART, isToolgateErrorCode, type CodeOf, type ToolgateErrorCode } from './codes.js';

/**
 * The base of toolgate's error classes: a stable `code` a caller can match on (undici and pino
 * style) and the `cause` it wraps, if any. Subclasses narrow `code` to their part of the one union
 * (codes.ts).
 */
export class ToolgateError<Code extends ToolgateErrorCode = ToolgateErrorCode> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.name = new.target.name;
  }
}

/**
 * A message for anything thrown, without its stack (noise to a user). A value whose String()
 * throws (a hostile object) still gets a message.
 */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unprintable error';
  }
}

/** The `code` of a thrown value when it has a string one (ours, Node's, undici's), else undefined. */
export function codeOf(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
