// The call's one deadline. It starts when the call is dispatched and bounds every stage (pre-execute
// listeners, guards, wrappers, the body, post-execute); only the wait for a person is off the clock,
// which has its own timeout. The shortest of the manifest's timeout, every deadline rule that applies
// and the caller's signal wins. When it fires, the message names the stage and the listener that was
// running, so an overrun is traced to its author.
import { ToolFailure, type ExecIdentity, type Tool } from '../tool/index.js';
import type { HookEntry } from './hooks.js';
import type { DeadlineRule } from './types.js';
import { LazyAbort, whenAborted, type Abortable } from '../signals/index.js';

/** After the deadline has passed, post-execute still gets this long per listener (to redact a TIMEOUT). */
export const POST_DEADLINE_GRACE_MS = 1_000;

export type ClockStage = 'tools/pre-execute' | 'guards' | 'tools/execute' | 'tools/post-execute';

export interface Budget {
  ms: number;
  /** Who set it: `the manifest's timeout_ms`, `policy "short"`. */
  source: string;
}

/** The shortest budget among the manifest's timeout and the deadline rules that apply. */
export function callBudget(
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  rules: readonly HookEntry<DeadlineRule>[],
): Budget | undefined {
  let best: Budget | undefined;
  const manifest = tool.definition.timeoutMs;
  if (manifest !== undefined) best = { ms: manifest, source: `the timeout of tool "${tool.name}"` };
  for (const r of rules) {
    let ms: unknown;
    try {
      ms = r.fn(exec, tool);
    } catch {
      // A rule that cannot say its deadline is not allowed to lift one: skip it, others still hold.
      continue;
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) continue;
    if (best === undefined || ms < best.ms) best = { ms, source: `policy "${r.id}"` };
  }
  return best;
}

/**
 * One timer for every running clock instead of one each: a call's setTimeout and clearTimeout
 * measured ~3 µs of a ~120 µs warm call (timer lists and their priority queue), where a clock
 * joining and leaving a set costs a fraction of that. The timer is armed for the earliest deadline
 * and re-armed only when a clock due sooner joins; it holds the process open only while some clock
 * runs, as each clock's own timer did. When it fires, every clock due by then fires and it is armed
 * again for the next; a clock not yet due waits for that next sweep even when it is a fraction of a
 * millisecond away, since the timer's grain is 1 ms and a deadline must never end a call before its
 * budget (docs/decisions.md, "Server CPU per call, sixth round", "Red team round: completions and
 * what else a client names").
 */
class SharedDeadlines {
  readonly #clocks = new Set<CallClock>();
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()), Infinity when it is not armed. */
  #at = Infinity;

  add(clock: CallClock): void {
    if (this.#clocks.size === 0) this.#timer?.ref();
    this.#clocks.add(clock);
    if (clock.due < this.#at) this.#arm(clock.due);
  }

  delete(clock: CallClock): void {
    this.#clocks.delete(clock);
    // an armed timer for a deadline nobody waits on no longer holds the process open
    if (this.#clocks.size === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = setTimeout(this.#sweep, Math.max(0, at - performance.now()));
    if (this.#clocks.size === 0) this.#timer.unref();
  }

  readonly #sweep = (): void => {
    this.#timer = undefined;
    this.#at = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const clock of [...this.#clocks]) {
      if (clock.due <= now) clock.expireNow();
      else if (clock.due < next) next = clock.due;
    }
    if (next < Infinity) this.#arm(next);
  };
}

const DEADLINES = new SharedDeadlines();

/**
 * One owned abort per call with a budget, none without, and its AbortSignal made only when asked
 * for (LazyAbort): on Node 20 each AbortSignal costs ~5-8 µs to make (it is an EventTarget whose
 * prototype is swapped afterwards), and the pipeline's own code reads `abortable` instead. The
 * deadline-only signal (post-execute races it) is made on first use.
 */
export class CallClock {
  readonly budget: Budget | undefined;
  readonly #own: LazyAbort | undefined;
  readonly #caller: Abortable;
  readonly #tool: string;
  readonly #relay = (): void => this.#own?.abort(this.#caller.reason);
  #stopRelay: (() => void) | undefined;
  #deadline: LazyAbort | undefined;
  #timeout: ToolFailure | undefined;
  /** Running: counted by the shared timer (DEADLINES), due at `due` (performance.now()). */
  #running = false;
  due = Infinity;
  #left: number;
  #startedAt = 0;
  #stage: ClockStage = 'tools/pre-execute';
  #listener: string | undefined;

  constructor(toolName: string, caller: Abortable, budget: Budget | undefined) {
    this.#tool = toolName;
    this.#caller = caller;
    this.budget = budget;
    this.#left = budget?.ms ?? Infinity;
    if (budget !== undefined) {
      this.#own = new LazyAbort();
      if (caller.aborted) this.#relay();
      else this.#stopRelay = whenAborted(caller, this.#relay);
      this.resume();
    }
  }

  /**
   * Aborts when the caller cancels or the deadline passes (the caller's own without a budget): what
   * the pipeline races and reads. Its AbortSignal (`signal`) is made only for whoever needs one.
   */
  get abortable(): Abortable {
    return this.#own ?? this.#caller;
  }

  /** `abortable` as an AbortSignal. */
  get signal(): AbortSignal {
    const a = this.abortable;
    return a instanceof LazyAbort ? a.signal : a;
  }

  /** Aborts only when the deadline passes. */
  get deadline(): Abortable {
    if (this.#deadline === undefined) {
      this.#deadline = new LazyAbort();
      if (this.#timeout !== undefined) this.#deadline.abort(this.#timeout);
    }
    return this.#deadline;
  }

  /** The TIMEOUT the deadline stands for, once it has passed. */
  get timeoutReason(): ToolFailure | undefined {
    return this.#timeout;
  }

  /** Where the call is now; the TIMEOUT message names it. */
  at(stage: ClockStage, listener?: string): void {
    this.#stage = stage;
    this.#listener = listener;
  }

  get expired(): boolean {
    return this.#timeout !== undefined;
  }

  /** A synchronous stage cannot be interrupted; this fires the deadline if it passed meanwhile. */
  check(): void {
    this.remainingMs();
  }

  /**
   * The time left before the deadline (Infinity without a budget; while paused, what is left). What
   * the layers below read instead of a timer of their own (architecture.md §3.3): once none is left
   * this fires the deadline first, so whoever notices it (the sandbox's fuel check, where no timer
   * can run) finds `signal` aborted with the clock's TIMEOUT.
   */
  readonly remainingMs = (): number => {
    if (this.#timeout !== undefined) return 0;
    if (!this.#running) return this.#left;
    const left = this.#left - (performance.now() - this.#startedAt);
    if (left > 0) return left;
    this.#fire();
    return 0;
  };

  /** Stops the clock (a person is being asked). */
  pause(): void {
    if (!this.#running) return;
    this.#stop();
    this.#left = Math.max(0, this.#left - (performance.now() - this.#startedAt));
  }

  resume(): void {
    if (this.budget === undefined || this.#running || this.expired) return;
    this.#startedAt = performance.now();
    this.#running = true;
    this.due = this.#startedAt + this.#left;
    DEADLINES.add(this);
  }

  #stop(): void {
    if (!this.#running) return;
    this.#running = false;
    DEADLINES.delete(this);
  }

  /** The shared timer found this clock's deadline passed. */
  expireNow(): void {
    this.#fire();
  }

  /** The failure the deadline stands for, naming the stage and listener it caught. */
  #fire(): void {
    if (this.expired || this.budget === undefined) return;
    this.#stop();
    const where = `${this.#stage}${this.#listener !== undefined ? ` (${this.#listener})` : ''}`;
    this.#timeout = new ToolFailure(
      'TIMEOUT',
      `tool "${this.#tool}" did not finish within its deadline of ${this.budget.ms} ms (set by ${this.budget.source}); it ran out in ${where}`,
    );
    this.#deadline?.abort(this.#timeout);
    // after a caller's abort this is a no-op: the first reason stands, as with linked signals
    this.#own?.abort(this.#timeout);
  }

  release(): void {
    this.#stop();
    this.#stopRelay?.();
  }
}
