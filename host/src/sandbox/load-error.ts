import { ToolgateError } from '../errors/index.js';

/** Why a module was refused at load. Callers match on `code`; the message names the tool and the rule. */
export type SandboxLoadErrorCode =
  | 'BAD_MODULE'
  | 'FORBIDDEN_IMPORT'
  | 'MEMORY_OVER_CAP'
  | 'MISSING_ENTRY'
  | 'BAD_ENTRY'
  | 'BAD_SPEC'
  | 'WORKER_MISSING';

export class SandboxLoadError extends ToolgateError<SandboxLoadErrorCode> {}
