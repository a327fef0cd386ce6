// Stage 4: the tools/execute waterfall around the body, under the call's deadline.
import {
  ERROR_CODES,
  ToolFailure,
  execAbortable,
  execIdentity,
  frozenJsonCopy,
  isJson,
  isSealedJson,
  type Json,
  type ExecFields,
  type ExecIdentity,
  type Tool,
} from '../tool/index.js';
import { ListenerError, attempt, linkSignals, raceSignal } from './async.js';
import type { CallClock } from './clock.js';
import type { CallContext } from './call.js';
import type { HookEntry } from './hooks.js';
import { checkedOutcome, failureOf } from './outcome.js';
import type { ExecOutcome, ExecReplace, ExecuteWrapper } from './types.js';
import { messageOf } from '../errors/index.js';
import { abortStatus, type Abortable } from '../signals/index.js';

/**
 * `exec.signal` is the caller's own signal. The body always gets a signal that aborts when the
 * caller cancels or the call's deadline passes, whatever a wrapper passed to next(), and the clock's
 * `remainingMs` (architecture.md §3.3). The caller is answered the moment either happens, even if a
 * body or wrapper ignores its signal; a signal a wrapper hands down bounds everything below that
 * wrapper the same way.
 */
export function runExecute(call: CallContext): Promise<ExecOutcome> {
  return new ExecuteRun(call).run();
}

/** One call's way down the wrappers to the body and back. */
class ExecuteRun {
  readonly #exec: Readonly<ExecIdentity>;
  readonly #caller: Abortable;
  readonly #tool: Tool;
  readonly #wrappers: readonly HookEntry<ExecuteWrapper>[];
  readonly #clock: CallClock;
  // Every linked signal is released when the call ends, so nothing stays attached to the caller's.
  readonly #links: (() => void)[] = [];
  #finished = false;

  constructor(call: CallContext) {
    this.#exec = call.exec;
    this.#caller = call.caller;
    this.#tool = call.tool;
    this.#wrappers = call.hooks['tools/execute'];
    this.#clock = call.clock;
  }

  async run(): Promise<ExecOutcome> {
    const base = this.#clock.abortable;
    try {
      const first = bodyIdentity(this.#exec, base, this.#clock.remainingMs);
      // Without wrappers the body already races `base` (the same signal): a second race only costs.
      return this.#wrappers.length === 0 ? await this.#body(first) : await raceSignal(this.#dispatch(0, first), base);
    } catch (err) {
      if (err instanceof ListenerError) return { ok: false, error: { code: 'LISTENER_ERROR', message: err.message } };
      if (base.aborted) return this.#abortOutcome(base);
      return { ok: false, error: { code: 'LISTENER_ERROR', message: messageOf(err) } };
    } finally {
      this.#finished = true;
      for (const release of this.#links) release();
    }
  }

  /** Why `signal` fired, as the caller reads it: its own cancellation, the deadline, or the signal's reason. */
  #abortOutcome(signal: Abortable): ExecOutcome & { ok: false } {
    const caller = this.#caller;
    if (caller.aborted) return callerAborted(caller, this.#tool.name);
    const reason: unknown = this.#clock.expired ? this.#clock.timeoutReason : signal.reason;
    const { code, message } = abortStatus(reason);
    return {
      ok: false,
      error: {
        code,
        message:
          message ?? (reason instanceof Error ? reason.message : `call to "${this.#tool.name}" was aborted (${code})`),
      },
    };
  }

  async #body(e: Readonly<ExecIdentity>): Promise<ExecOutcome> {
    const tool = this.#tool;
    let value: unknown;
    this.#clock.at('tools/execute', "the tool's body");
    const signal = execAbortable(e);
    try {
      value = await raceSignal(
        attempt(() => tool.definition.execute(e.arguments, e)),
        signal,
      );
    } catch (err) {
      return this.#bodyFailure(err, signal);
    }
    // A value that arrives after the signal fired is an answer nobody is waiting for.
    if (signal.aborted) return this.#abortOutcome(signal);
    // A sealed value (the host parsed it from a module's bytes) is checked JSON, frozen and held by
    // no one: it is used as it is. Any other value is checked and copied frozen in one walk.
    const sealedValue = isSealedJson(value);
    if (!sealedValue && !isJson(value)) {
      return {
        ok: false,
        error: { code: 'INVALID_OUTPUT', message: `tool "${tool.name}" returned a value that is not JSON` },
      };
    }
    // checked once, on a frozen copy: what the result is built from (outcome.ts, checkedOutcome)
    const frozen = sealedValue ? (value as Json) : frozenJsonCopy(value as Json);
    const check = tool.checkOutput(frozen);
    if (!check.ok)
      return {
        ok: false,
        error: { code: 'INVALID_OUTPUT', message: `tool "${tool.name}" returned invalid output: ${check.message}` },
      };
    return checkedOutcome(frozen);
  }

  #bodyFailure(err: unknown, signal: Abortable): ExecOutcome & { ok: false } {
    // A ToolFailure says more than the abort that came with it; anything else (a bare ABORTED
    // included: the body cannot know whether its signal fired for the caller or the deadline) is
    // the abort's echo. The clock is the deadline's one owner: a TIMEOUT from below is its own.
    if (signal.aborted && (!(err instanceof ToolFailure) || err.code === 'ABORTED')) return this.#abortOutcome(signal);
    return failureOf(err, this.#tool.name);
  }

  /** Wrapper `i` around everything below it (the body past the last one). */
  async #dispatch(i: number, e: Readonly<ExecIdentity>): Promise<ExecOutcome> {
    const w = this.#wrappers[i];
    if (w === undefined) return this.#body(e);
    const next = (replace?: ExecReplace): Promise<ExecOutcome> => this.#next(i, w.id, e, replace);
    let out: unknown;
    try {
      this.#clock.at('tools/execute', `wrapper "${w.id}"`);
      out = await attempt(() => w.fn(e, next, this.#tool));
    } catch (err) {
      throw err instanceof ListenerError
        ? err
        : new ListenerError(`execute wrapper "${w.id}" threw: ${messageOf(err)}`);
    }
    if (!isOutcome(out))
      throw new ListenerError(
        `execute wrapper "${w.id}" returned no outcome ({ok:true, value} | {ok:false, error:{code, message}})`,
      );
    return out;
  }

  /** Wrapper `i`'s next(): what is below it, under the signal it hands down when it hands one. */
  #next(i: number, id: string, e: Readonly<ExecIdentity>, replace: ExecReplace | undefined): Promise<ExecOutcome> {
    // The result is already answered: a late next() (from a timer, say) must not run the body.
    if (this.#finished)
      return Promise.reject(new ListenerError(`execute wrapper "${id}" called next() after the call ended`));
    if (replace !== undefined) checkReplace(id, replace);
    const back = () => this.#clock.at('tools/execute', `wrapper "${id}"`);
    if (replace?.signal === undefined)
      return this.#dispatch(i + 1, Object.freeze({ ...e, signal: e.signal })).finally(back);
    // The signal handed down bounds what runs below: a stuck inner wrapper ends when it fires.
    const l = linkSignals([e.signal, replace.signal]);
    this.#links.push(l.release);
    const signal = l.signal;
    return raceSignal(this.#dispatch(i + 1, Object.freeze({ ...e, signal })), signal)
      .catch((err: unknown) => {
        if (err instanceof ListenerError || !signal.aborted) throw err;
        return this.#abortOutcome(signal);
      })
      .finally(back);
  }
}

/**
 * The body's identity: the call's, with the clock's cancellation as its signal (made only if read:
 * tool/exec-signal.ts) and the clock's time left. Copied field by field, since a spread would read
 * the caller's signal and so make it.
 */
function bodyIdentity(exec: Readonly<ExecIdentity>, cancel: Abortable, remainingMs: () => number): ExecIdentity {
  const f: ExecFields = { callId: exec.callId, name: exec.name, arguments: exec.arguments };
  if (exec.agent !== undefined) f.agent = exec.agent;
  if (exec.token !== undefined) f.token = exec.token;
  if (exec.client !== undefined) f.client = exec.client;
  f.remainingMs = remainingMs;
  return Object.freeze(execIdentity(f, cancel));
}

function checkReplace(id: string, replace: unknown): void {
  if (typeof replace !== 'object' || replace === null)
    throw new ListenerError(`execute wrapper "${id}": next() takes { signal } or nothing`);
  for (const key of Object.keys(replace)) {
    if (key !== 'signal')
      throw new ListenerError(`execute wrapper "${id}": next() may replace only the signal, not "${key}"`);
  }
  const signal = (replace as { signal?: unknown }).signal;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new ListenerError(`execute wrapper "${id}": next({signal}) needs an AbortSignal`);
}

function isOutcome(v: unknown): v is ExecOutcome {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  if (o.ok === true) return 'value' in o;
  if (o.ok === false) {
    const e = o.error as Record<string, unknown> | undefined;
    return (
      typeof e === 'object' &&
      e !== null &&
      (ERROR_CODES as readonly unknown[]).includes(e.code) &&
      typeof e.message === 'string'
    );
  }
  return false;
}

/**
 * The caller's cancellation, in the caller's words when it gave a ToolFailure as the reason (a
 * server shutting down says so); a caller's own deadline (AbortSignal.timeout) is TIMEOUT, anything
 * else "cancelled by the caller" (signals/ `abortStatus`).
 */
export function callerAborted(signal: Abortable, tool: string): ExecOutcome & { ok: false } {
  const { code, message } = abortStatus(signal.reason);
  if (message !== undefined) return { ok: false, error: { code, message } };
  if (code === 'TIMEOUT')
    return { ok: false, error: { code, message: `call to "${tool}" did not finish within its caller's deadline` } };
  return { ok: false, error: { code: 'ABORTED', message: `call to "${tool}" was cancelled by the caller` } };
}
