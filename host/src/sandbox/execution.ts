// Which calls may run on the calling thread (issue 15, docs/decisions.md "Calls on the calling
// thread"): a tool with no network and no file access cannot block on the outside, and re-running
// one from scratch has no effect outside its instance, so it may run in-thread, preempted by the
// fuel check in its module, and move to a worker past its time slice. Everything else runs in a worker.
import type { SandboxToolSpec } from './spec.js';

/** How long a call may run on the calling thread before it is stopped and re-run in a worker. */
export const DEFAULT_SLICE_MS = 5;

export function mayRunInThread(spec: SandboxToolSpec): boolean {
  if (spec.execution?.path === 'worker') return false;
  return spec.allowedHosts.length === 0 && Object.keys(spec.allowedPaths).length === 0;
}

/** Modules are instrumented when their calls may run in-thread, unless the spec says otherwise. */
export function wantsInstrumentation(spec: SandboxToolSpec): boolean {
  return spec.execution?.instrument ?? mayRunInThread(spec);
}
