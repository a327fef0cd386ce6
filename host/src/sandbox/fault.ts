// What a failed call reported by an instance (worker or calling thread) becomes for the caller.
import { ToolFailure } from '../tool/index.js';
import { Fault } from './channel.js';
import { sanitizeMessage } from './sanitize.js';

/** The caller's failure, and whether the instance must be replaced (a trap leaves its state suspect). */
export function failureOf(
  fault: number,
  message: string,
  secrets: readonly string[],
): { failure: ToolFailure; poisoned: boolean } {
  const poisoned = fault === Fault.TOOL_TRAP || fault === Fault.OUTPUT_TOO_LARGE_TRAP;
  const code =
    fault === Fault.OUTPUT_TOO_LARGE || fault === Fault.OUTPUT_TOO_LARGE_TRAP
      ? 'OUTPUT_TOO_LARGE'
      : fault === Fault.QUOTA_EXCEEDED
        ? 'QUOTA_EXCEEDED'
        : 'TOOL_ERROR';
  return { failure: new ToolFailure(code, sanitizeMessage(message, secrets)), poisoned };
}
