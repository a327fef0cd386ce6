// Which calls may run on the calling thread (issue 15, docs/decisions.md "Calls on the calling
// thread"): a tool with no network, no file access and no MCP client features cannot block on the
// outside, and re-running one from scratch has no effect outside its instance, so it may run
// in-thread, preempted by the fuel check in its module, and move to a worker past its time slice.
// Everything else runs in a worker.
import type { CallControl } from './call-control.js';
import { MoveToWorker } from './in-thread.js';
import type { InstancePool, PoolStats } from './pool.js';
import type { SandboxToolSpec } from './spec.js';

/**
 * How long a call may run on the calling thread before it is stopped and re-run in a worker. Wall
 * time: on a loaded machine a short call can be descheduled for milliseconds, and a spurious move
 * costs a worker start, so the slice is not cut finer than this.
 */
export const DEFAULT_SLICE_MS = 20;

export function mayRunInThread(spec: SandboxToolSpec): boolean {
  if (spec.execution?.path === 'worker') return false;
  // A component's instance is its engine (megabytes of memory, a trap poisons it): worker only.
  if (spec.abi === 'component') return false;
  // A tool that talks to its MCP client (capabilities.mcp) has effects outside its instance, and
  // its elicitation and sampling wait on the main thread's event loop: worker only.
  if ((spec.clientFeatures ?? []).length > 0) return false;
  // One instruction (memory.fill/copy) or host call over a large memory runs with no fuel check
  // between (measured: the first memory.fill of 64 MiB held a thread 0.5-1.2 s on this machine):
  // only tools with at most the default 16 MiB may run here.
  if (spec.limits.maxPages > IN_THREAD_MAX_PAGES) return false;
  return spec.allowedHosts.length === 0 && Object.keys(spec.allowedPaths).length === 0;
}

/** The largest memory cap (64 KiB pages) of a tool that may run on the calling thread: 16 MiB. */
export const IN_THREAD_MAX_PAGES = 256;

/** Modules are instrumented when their calls may run in-thread, unless the spec says otherwise. */
export function wantsInstrumentation(spec: SandboxToolSpec): boolean {
  return spec.execution?.instrument ?? mayRunInThread(spec);
}

/** After a call moved to a worker, this many calls go straight there before the calling thread is tried again. */
const SKIP_AFTER_MOVE = 15;

/** Calls of one tool, by where they ended (SandboxTool.paths). */
export interface PathCounts {
  /** Answered on the calling thread (a value or a failure). */
  inThread: number;
  /** Answered by a worker (moved ones included). */
  worker: number;
  /** Stopped on the calling thread and re-run in a worker. */
  moved: number;
}

/** The calling-thread path of one tool: its own pool of in-thread instances, tried first. */
export class InThreadRoute {
  #skip = 0;

  constructor(
    private readonly pool: InstancePool,
    private readonly counts: PathCounts,
  ) {}

  /** The call's result from the calling thread, or undefined when it must run in a worker. */
  async run(input: Uint8Array, ctl: CallControl): Promise<Uint8Array | undefined> {
    if (this.#skip > 0) {
      this.#skip--;
      return undefined;
    }
    try {
      // An idle instance runs the call on this thread at once, its fuel check polling the control:
      // nothing to race, so the call's timer and signal listener are never armed. Starting one
      // (loading, instantiating) waits, and is raced against the deadline and the caller's signal.
      const direct = this.pool.hasIdle();
      const run = this.pool.run(input, ctl);
      const out = await (direct ? run : ctl.race(run));
      this.counts.inThread++;
      return out;
    } catch (err) {
      if (!(err instanceof MoveToWorker)) {
        this.counts.inThread++;
        throw err;
      }
      // a tool whose calls outgrow the slice stops paying for a wasted slice on every call
      this.counts.moved++;
      this.#skip = SKIP_AFTER_MOVE;
      return undefined;
    }
  }

  stats(): PoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
