import { ToolgateError, type CodeOf } from '../errors/index.js';

/** Why a module was refused at load. Callers match on `code`; the message names the tool and the rule. */
export type SandboxLoadErrorCode = CodeOf<'sandboxLoad'>;

export class SandboxLoadError extends ToolgateError<SandboxLoadErrorCode> {}
