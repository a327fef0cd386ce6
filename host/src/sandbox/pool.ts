// Instances of one tool: at most `max`, one call at a time each (architecture.md §8.6), reused across calls,
// queued FIFO beyond the bound with each queued call's deadline still running, trimmed when idle.
import { ToolFailure, type CallClient } from '../tool/index.js';
import type { CallControl } from './call-control.js';
import { tracer } from '../telemetry/index.js';

/** One instance, in a worker (instance.ts) or on the calling thread (in-thread.ts). */
export interface PooledInstance {
  /** Set when the instance must not serve another call. */
  poisoned: boolean;
  readonly dead: boolean;
  /**
   * Set when the instance runs the call on the calling thread and polls the control itself (its
   * fuel check, and once the call returns): the pool then adds no cancel listener, so the call's
   * timer and signal listener stay unarmed (call-control.ts). Cancellation still tears it down:
   * the instance comes back poisoned and is discarded.
   */
  readonly pollsControl?: boolean;
  /**
   * Set when every wait of the instance's run() races the control (instance.ts): the pool's cancel
   * listener then does not arm it, and a call whose answer comes without a wait arms nothing.
   */
  readonly racesControl?: boolean;
  /** Runs one call. Throws ToolFailure; on TIMEOUT/ABORTED the pool terminates this instance. */
  run(input: Uint8Array, ctl: CallControl, client?: CallClient): Promise<Uint8Array>;
  terminate(): Promise<void>;
  /**
   * An instance that shares its thread with others (instance-workers.ts) is taken for a call only
   * when no other instance's call holds that thread: claim() takes it (false: held elsewhere), and
   * unclaim() gives it back when the call is over. Absent: always free.
   */
  claim?(): boolean;
  unclaim?(): void;
  /** Called when the instance is lost without a call of its own (its shared worker was terminated). */
  watch?(lost: () => void): void;
}

export interface PoolOptions {
  max: number;
  idleMs: number;
  spawn(ctl: CallControl): Promise<PooledInstance>;
  /** A deadline for starting a replacement in the background after a teardown. */
  warmStartMs: number;
  newControl(timeoutMs: number): CallControl;
}

export interface PoolStats {
  live: number;
  busy: number;
  idle: number;
  queued: number;
}

const noop = (): void => {};

/** What a queued call is handed: an instance, or the right to start one. */
type Grant = PooledInstance | 'spawn';

interface Waiter {
  grant(g: Grant): void;
  fail(err: ToolFailure): void;
}

export class InstancePool {
  /**
   * Every started instance: each is either idle (in #idle) or running a call, so the busy count is
   * the difference; a set of busy ones, added to and deleted from around every call, cost ~0.1-0.2
   * µs of each (docs/decisions.md, "Per-call work on the calling thread").
   */
  readonly #all = new Set<PooledInstance>();
  #idle: PooledInstance[] = [];
  /** Instances that have run a call (kept only while tracing is on, for the sandbox span). */
  readonly #used = new WeakSet<PooledInstance>();
  /**
   * When each idle instance was last released. One timer per pool trims them, armed for the oldest:
   * a timer set and cleared around every call cost a few µs of each call.
   */
  readonly #idleSince = new Map<PooledInstance, number>();
  #trimTimer: NodeJS.Timeout | undefined;
  readonly #queue: Waiter[] = [];
  readonly #active = new Set<CallControl>();
  #starting = 0;
  /** Background replacements being started; a new call waits for one instead of starting its own. */
  #warming = 0;
  #closed = false;
  /** Set once an instance has started: only then is a background replacement worth its cost. */
  #everStarted = false;

  constructor(private readonly opts: PoolOptions) {}

  /** An idle instance would take a call now, without starting one. */
  hasIdle(): boolean {
    if (this.#closed) return false;
    // a loop, not some(): no closure made on every call of the calling-thread path
    for (const i of this.#idle) if (!i.dead) return true;
    return false;
  }

  stats(): PoolStats {
    return {
      live: this.#all.size + this.#starting,
      busy: this.#all.size - this.#idle.length,
      idle: this.#idle.length,
      queued: this.#queue.length,
    };
  }

  async run(input: Uint8Array, ctl: CallControl, client?: CallClient): Promise<Uint8Array> {
    this.#active.add(ctl);
    try {
      const instance = await this.#acquire(ctl);
      // With tracing on, the sandbox run's span says whether this call started its instance.
      const t = tracer();
      if (t !== undefined) {
        t.annotate({ 'toolgate.sandbox.instance': this.#used.has(instance) ? 'reuse' : 'start' });
        this.#used.add(instance);
      }
      if (ctl.poll()) {
        // cancelled in the instant between being handed an instance and resuming
        this.#release(instance);
        throw ctl.failure;
      }
      // on deadline or abort the instance is torn down at once, before the caller even resumes
      const off =
        instance.pollsControl === true
          ? noop
          : instance.racesControl === true
            ? ctl.listen(() => this.#discard(instance))
            : ctl.onCancel(() => this.#discard(instance));
      try {
        const out = await instance.run(input, ctl, client);
        off();
        this.#release(instance);
        return out;
      } catch (err) {
        off();
        if (!this.#all.has(instance)) throw err; // already torn down
        if (instance.dead || !(err instanceof ToolFailure)) this.#discard(instance);
        // one sharing a worker (claim) is replaced at the next call; see #discard
        else if (instance.poisoned) this.#discard(instance, instance.claim === undefined ? 'now' : 'lazily');
        else this.#release(instance);
        throw err;
      }
    } finally {
      this.#active.delete(ctl);
    }
  }

  async #acquire(ctl: CallControl): Promise<PooledInstance> {
    if (this.#closed) throw new ToolFailure('ABORTED', 'the sandbox is closed');
    const idle = this.#takeIdle();
    if (idle) return idle;
    if (this.#warming <= this.#queue.length && this.#all.size + this.#starting >= this.opts.max) this.#dropHeld();
    if (this.#warming <= this.#queue.length && this.#all.size + this.#starting < this.opts.max) return this.#start(ctl);

    let grant: Grant;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (g) => {
          off();
          grant = g;
          resolve();
        },
        fail: (err) => {
          off();
          reject(err);
        },
      };
      const off = ctl.onCancel((failure) => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(failure);
      });
      this.#queue.push(waiter);
    });
    const g = grant!;
    if (g === 'spawn') return this.#start(ctl);
    return g;
  }

  /** The most recently used idle instance that is free to run now (its caches are warm). */
  #takeIdle(): PooledInstance | undefined {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const inst = this.#idle[i]!;
      if (inst.dead) {
        this.#forgetIdle(inst);
        continue;
      }
      // its worker runs another tool's call: this call does not wait behind it
      if (inst.claim?.() === false) continue;
      // the last one is the usual case: pop() makes no array, splice() makes one of what it removed
      if (i === this.#idle.length - 1) this.#idle.pop();
      else this.#idle.splice(i, 1);
      this.#idleSince.delete(inst);
      return inst;
    }
    return undefined;
  }

  /**
   * At the bound with every idle instance in a worker another tool's call holds: one of them is
   * dropped, so this call starts an instance elsewhere instead of waiting for that other call.
   */
  #dropHeld(): void {
    const held = this.#idle.find((inst) => !inst.dead);
    if (held === undefined) return;
    this.#forgetIdle(held);
    void held.terminate();
  }

  /** Lost with its shared worker while idle: forgotten, and started again in the background. */
  #lost(inst: PooledInstance): void {
    if (!this.#forgetIdle(inst)) return; // a running call's own failure discards it
    setImmediate(() => this.#warmReplacement());
  }

  async #start(ctl: CallControl): Promise<PooledInstance> {
    this.#starting++;
    let inst: PooledInstance;
    try {
      inst = await this.opts.spawn(ctl);
    } catch (err) {
      this.#starting--;
      this.#pump();
      throw err;
    }
    this.#starting--;
    this.#everStarted = true;
    this.#all.add(inst);
    inst.watch?.(() => this.#lost(inst));
    if (this.#closed) {
      this.#discard(inst);
      throw new ToolFailure('ABORTED', 'the sandbox is closed');
    }
    return inst;
  }

  #release(inst: PooledInstance): void {
    if (this.#closed || inst.dead) {
      this.#discard(inst);
      return;
    }
    inst.unclaim?.();
    // the thread was just given back: nothing can have taken it in between
    const waiter = inst.claim?.() === false ? undefined : this.#queue.shift();
    if (waiter) {
      waiter.grant(inst);
      return;
    }
    inst.unclaim?.();
    this.#idle.push(inst);
    this.#idleSince.set(inst, performance.now());
    this.#armTrim();
  }

  /** Arms the pool's one trim timer for the instance that has been idle longest (if not armed). */
  #armTrim(): void {
    if (this.#trimTimer !== undefined || this.#closed || this.#idleSince.size === 0) return;
    let oldest = Infinity;
    for (const since of this.#idleSince.values()) oldest = Math.min(oldest, since);
    const due = Math.max(0, oldest + this.opts.idleMs - performance.now());
    this.#trimTimer = setTimeout(() => {
      this.#trimTimer = undefined;
      const now = performance.now();
      for (const [inst, since] of [...this.#idleSince]) if (now - since >= this.opts.idleMs) this.#trim(inst);
      this.#armTrim();
    }, due);
    this.#trimTimer.unref();
  }

  #trim(inst: PooledInstance): void {
    if (this.#forgetIdle(inst)) void inst.terminate();
  }

  /** Takes an idle instance out of the pool (false: it was not idle); terminating it is the caller's. */
  #forgetIdle(inst: PooledInstance): boolean {
    const i = this.#idle.indexOf(inst);
    if (i < 0) return false;
    this.#idle.splice(i, 1);
    this.#idleSince.delete(inst);
    this.#all.delete(inst);
    return true;
  }

  /**
   * Drops an instance. Its replacement starts in the background, or with `lazily` at the tool's
   * next call: a call that faulted (a trap, a host function's error) has been answered and its
   * instance is dropped in place, its worker alive with room; a background start there would hold
   * that worker, so another tool's call would boot a worker rather than wait (docs/decisions.md
   * "A faulted instance is replaced at the next call").
   */
  #discard(inst: PooledInstance, replace: 'now' | 'lazily' = 'now'): void {
    if (!this.#all.has(inst)) return;
    this.#all.delete(inst);
    void inst.terminate();
    this.#pump();
    // after the caller has been answered: starting a worker costs the main thread a few ms
    if (replace === 'now' && this.#queue.length === 0) setImmediate(() => this.#warmReplacement());
  }

  /** Capacity freed: the first queued call may start its own instance. */
  #pump(): void {
    while (this.#queue.length > 0 && this.#all.size + this.#starting < this.opts.max) {
      (this.#queue.shift() as Waiter).grant('spawn');
      // the granted call increments #starting when it starts; count it now so the loop stops
      this.#starting++;
      queueMicrotask(() => this.#starting--);
    }
  }

  /**
   * Starts one instance in the background when none is live or starting, so the tool's first call
   * finds it ready; it waits in the pool and is trimmed when idle like any other. A start that fails
   * is dropped: the call that comes starts its own and gets the reason.
   */
  prestart(): void {
    if (this.#closed || this.#all.size + this.#starting > 0) return;
    this.#startInBackground();
  }

  /** After a teardown, start the replacement now so the next call does not pay for it. */
  #warmReplacement(): void {
    if (this.#closed || !this.#everStarted || this.#all.size + this.#starting >= this.opts.max) return;
    this.#startInBackground();
  }

  /** A queued or new call waits for this start (#warming) instead of starting its own. */
  #startInBackground(): void {
    const ctl = this.opts.newControl(this.opts.warmStartMs);
    this.#starting++;
    this.#warming++;
    this.opts.spawn(ctl).then(
      (inst) => {
        this.#starting--;
        this.#warming--;
        ctl.dispose();
        this.#all.add(inst);
        inst.watch?.(() => this.#lost(inst));
        this.#release(inst);
      },
      () => {
        this.#starting--;
        this.#warming--;
        ctl.dispose();
        this.#pump();
      },
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const aborted = (): ToolFailure => new ToolFailure('ABORTED', 'the sandbox was closed while the call was pending');
    for (const w of this.#queue.splice(0)) w.fail(aborted());
    for (const ctl of this.#active) ctl.cancel(aborted());
    clearTimeout(this.#trimTimer);
    this.#trimTimer = undefined;
    this.#idleSince.clear();
    this.#idle = [];
    const all = [...this.#all];
    this.#all.clear();
    await Promise.all(all.map((i) => i.terminate()));
  }
}
