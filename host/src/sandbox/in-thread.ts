// An instance on the calling thread (issue 15): no thread hop, so a short call costs what the plugin
// costs. Its modules are instrumented (module/preempt.ts): the fuel check compares the clock with
// the call's time slice and deadline and reads its cancellation, and throws to stop the module.
// A call stopped by its slice, or that would block the thread (an HTTP request, a WASI sleep) or
// overflow its smaller stack, is given up (MoveToWorker) and re-run from scratch in a worker; one
// past its deadline or cancelled ends TIMEOUT/ABORTED. Either way the instance is discarded.
import { messageOf, ToolgateError } from '../errors/index.js';
import { ToolFailure } from '../tool/index.js';
import type { CallControl } from './call-control.js';
import { errorBytes } from './channel.js';
import { failureOf } from './fault.js';
import type { PooledInstance } from './pool.js';
import { sanitizeMessage } from './sanitize.js';
import type { CallResult, PluginRunner, RunnerHooks, RunnerInit } from './worker/plugin-runner.js';
import type { LogMessage } from './worker/protocol.js';

/** Fuel handed out per check: ~0.1-1 ms of instructions, so a check costs well under 0.1%. */
const REFILL = 200_000;

/** The call must leave the calling thread: it is re-run in a worker. Never reaches a caller. */
export class MoveToWorker extends ToolgateError<'MOVE_TO_WORKER'> {
  constructor(message: string) {
    super('MOVE_TO_WORKER', message);
  }
}

export interface InThreadSetup {
  tool: string;
  init: RunnerInit;
  secrets: readonly string[];
  sliceMs: number;
  onLog(msg: LogMessage): void;
}

/** The preemption check of one instance. Once it has stopped a call it keeps throwing. */
class SliceGate {
  #ctl: CallControl | undefined;
  #until = Infinity;
  tripped: Error | undefined;

  arm(ctl: CallControl, sliceMs: number): void {
    this.#ctl = ctl;
    this.#until = Math.min(performance.now() + sliceMs, ctl.deadline);
  }

  disarm(): void {
    this.#ctl = undefined;
  }

  /** Stops the call from a host function (sticky: every later check throws too). */
  stop(err: Error): never {
    this.tripped ??= err;
    throw this.tripped;
  }

  check = (): number => {
    if (this.tripped) throw this.tripped;
    const ctl = this.#ctl;
    if (ctl === undefined) return REFILL;
    const now = performance.now();
    // the caller's abort and the deadline, polled: no timer or listener runs while this thread is busy
    const failure = ctl.poll(now);
    if (failure) this.stop(failure);
    if (now >= this.#until) this.stop(new MoveToWorker('the call used up its time slice on the calling thread'));
    return REFILL;
  };
}

/** createPlugin watches WebAssembly.instantiate (worker/instantiate.ts): one at a time on this thread. */
let starting: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const next = starting.then(fn, fn);
  starting = next.catch(() => undefined);
  return next;
}

/**
 * The SDK, loaded on this thread only once a tool runs here. It imports node:wasi (unused: toolgate
 * has its own WASI), whose ExperimentalWarning is not for users (architecture.md §8.10): dropped while it loads.
 */
let runnerModule: Promise<typeof import('./worker/plugin-runner.js')> | undefined;
function loadRunner(): Promise<typeof import('./worker/plugin-runner.js')> {
  if (runnerModule) return runnerModule;
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/WASI/.test(text)) return;
    (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  runnerModule = import('./worker/plugin-runner.js').finally(() => {
    process.emitWarning = emit;
  });
  return runnerModule;
}

/**
 * Starts loading the SDK for a tool that may run here while its module is still being read and
 * compiled (awaits that leave this thread idle), so its first call does not load it afterwards.
 * Resolves once it is loaded; never rejects (a failed load is the first instance's to report).
 */
export function preloadRunner(): Promise<void> {
  return loadRunner().then(
    () => undefined,
    () => undefined,
  );
}

const STACK_OVERFLOW = /Maximum call stack size exceeded/;

export class InThreadInstance implements PooledInstance {
  poisoned = false;
  readonly pollsControl = true;
  #dead = false;
  #runner: PluginRunner | undefined;
  readonly #gate = new SliceGate();
  /** A call's log lines, sent when it ends here (a call moved to a worker logs there, once). */
  #logs: LogMessage[] = [];

  private constructor(private readonly setup: InThreadSetup) {}

  get dead(): boolean {
    return this.#dead;
  }

  static async spawn(setup: InThreadSetup, ctl: CallControl): Promise<InThreadInstance> {
    const { PluginRunner } = await loadRunner();
    const inst = new InThreadInstance(setup);
    let failed: unknown;
    await oneAtATime(async () => {
      inst.#gate.arm(ctl, setup.sliceMs);
      try {
        inst.#runner = await PluginRunner.start(setup.init, inst.#hooks());
      } catch (err) {
        failed = err;
      } finally {
        inst.#gate.disarm();
      }
    });
    const message = failed === undefined ? '' : messageOf(failed);
    const stop = inst.#stopped(ctl, message);
    if (stop || failed !== undefined) {
      inst.#dead = true;
      throw stop ?? new ToolFailure('TOOL_ERROR', sanitizeMessage(message, setup.secrets));
    }
    inst.#flushLogs();
    return inst;
  }

  async run(input: Uint8Array, ctl: CallControl): Promise<Uint8Array> {
    const runner = this.#runner;
    if (this.#dead || runner === undefined) throw new ToolFailure('TOOL_ERROR', 'the instance is gone');
    this.#gate.arm(ctl, this.setup.sliceMs);
    let result: CallResult;
    try {
      result = await runner.call(input);
    } finally {
      this.#gate.disarm();
    }
    const stop = this.#stopped(ctl, result.ok ? '' : result.message);
    if (stop) {
      this.poisoned = true;
      this.#logs = [];
      throw stop;
    }
    runner.finish();
    // cancelled while the call ran (by its caller, or a sandbox closing): no listener tore it down
    const cancelled = ctl.poll();
    if (cancelled) {
      this.poisoned = true;
      this.#logs = [];
      throw cancelled;
    }
    this.#flushLogs();
    if (result.ok) return result.bytes;
    const { failure, poisoned } = failureOf(
      result.fault,
      new TextDecoder().decode(errorBytes(result.message)),
      this.setup.secrets,
    );
    if (poisoned) this.poisoned = true;
    throw failure;
  }

  /** Why the call may not end here: the gate stopped it, or it overflowed this thread's stack. */
  #stopped(ctl: CallControl, message: string): Error | undefined {
    const tripped = this.#gate.tripped;
    if (tripped instanceof ToolFailure) return ctl.failure ?? tripped;
    if (tripped) return tripped;
    if (STACK_OVERFLOW.test(message)) return new MoveToWorker("the call overflowed the calling thread's stack");
    return undefined;
  }

  #hooks(): RunnerHooks {
    return {
      log: (level, line) => void this.#logs.push({ kind: 'log', level, line }),
      // both would block this thread: the call moves to a worker, where they are served
      http: () => this.#gate.stop(new MoveToWorker('http_request on the calling thread')),
      beforeSleep: () => this.#gate.stop(new MoveToWorker('a WASI sleep on the calling thread')),
      beforeBulk: () => this.#gate.stop(new MoveToWorker('long host work (random_get) on the calling thread')),
      preempt: this.#gate.check,
      // a host call is one unit of fuel however long it runs (a 16 MiB fd_write): see the clock
      afterHostCall: () => void this.#gate.check(),
    };
  }

  #flushLogs(): void {
    const logs = this.#logs;
    this.#logs = [];
    for (const msg of logs) this.setup.onLog(msg);
  }

  terminate(): Promise<void> {
    this.#dead = true;
    this.poisoned = true;
    this.#runner = undefined;
    return Promise.resolve();
  }
}
