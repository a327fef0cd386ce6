// One call as its stages see it (architecture.md §3), made once at dispatch and handed to each
// stage whole instead of in parts.
import type { Abortable } from '../signals/index.js';
import type { ExecIdentity, Tool } from '../tool/index.js';
import type { CallClock } from './clock.js';
import type { HookSnapshot } from './hooks.js';
import type { DecisionTrail } from './types.js';

export interface CallContext {
  /** Who calls what, as policies see it; `signal` is the caller's own. */
  readonly exec: Readonly<ExecIdentity>;
  /** The caller's cancellation, `exec.signal`'s state, read without making that signal. */
  readonly caller: Abortable;
  readonly tool: Tool;
  /** What was decided and by whom: the stages write it, the audit record reads it. */
  readonly trail: DecisionTrail;
  /** The deadline's one owner (architecture.md §3.3). */
  readonly clock: CallClock;
  /** The hooks in force when the call began: a reload never mixes two sets in one call. */
  readonly hooks: HookSnapshot;
}
