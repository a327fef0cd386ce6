import type { ErrorCode } from './types.js';
import { ToolgateError } from '../errors/index.js';

/**
 * A failure that already knows its stable code. A tool body (or the sandbox under it) throws this
 * so the pipeline can report TIMEOUT, ABORTED, OUTPUT_TOO_LARGE... instead of a generic TOOL_ERROR.
 */
export class ToolFailure extends ToolgateError<ErrorCode> {}
