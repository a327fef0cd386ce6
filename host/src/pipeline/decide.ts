// Stages 2 and 3: the pre-execute waterfall, approval for 'ask', then guards. Shared by a real call
// and by `policy explain` (dryRun), so what explain prints is what a call would do.
import { ListenerError, attempt, linkSignals, raceSignal, withTimeout } from './async.js';
import type { CallContext } from './call.js';
import { failed, type Refusal } from './outcome.js';
import {
  DENY_CODES,
  type ApprovalService,
  type DenyCode,
  type Decision,
  type DecisionTrail,
  type PreExecuteInfo,
  type TrailStep,
} from './types.js';
import { messageOf, ToolgateError } from '../errors/index.js';
import { tracer } from '../telemetry/index.js';

const ALLOW: Decision = Object.freeze({ kind: 'allow' });
/** What an empty pre-execute chain decides (runChain's answer past its last listener). */
const DEFAULT_ALLOW: Decided = Object.freeze({ decision: ALLOW, by: 'default' });

export interface GateOptions {
  dryRun: boolean;
  /** An optional cap per listener; the call's deadline (the clock) bounds them all anyway. */
  listenerTimeoutMs: number | undefined;
  approval: ApprovalService | undefined;
  approvalTimeoutMs: number;
  /** See CallOptions.onApprovalWait. */
  onApprovalWait?: (() => () => void) | undefined;
}

export function newTrail(): DecisionTrail {
  return { decision: null, decidedBy: null, steps: [], final: 'not-reached' };
}

/**
 * Runs pre-execute, then guards, then (for 'ask') the approval; returns null when the call may go
 * on, else its failure. Guards come before the person: a call a guard denies never reaches anyone.
 */
export function gate(call: CallContext, opts: GateOptions): Refusal | null | Promise<Refusal | null> {
  call.clock.at('tools/pre-execute');
  // No listeners: the chain is the default allow, decided now. Without a promise or an await when
  // nothing needs one (docs/decisions.md, "Server CPU per call, seventh round"); an abort could not
  // have won the race against a chain already settled anyway.
  if (call.hooks['tools/pre-execute'].length === 0) return afterDecision(call, DEFAULT_ALLOW, opts);
  return gateChain(call, opts);
}

async function gateChain(call: CallContext, opts: GateOptions): Promise<Refusal | null> {
  let decided: Decided;
  try {
    decided = await raceSignal(
      runChain(call, { tool: call.tool, dryRun: opts.dryRun }, opts.listenerTimeoutMs),
      call.clock.abortable,
    );
  } catch (err) {
    call.trail.final = 'denied';
    return stopped(call) ?? failed('LISTENER_ERROR', messageOf(err));
  }
  return await afterDecision(call, decided, opts);
}

/** The chain's decision, then guards, then (for 'ask') the person; async only for the person. */
function afterDecision(
  call: CallContext,
  { decision, by }: Decided,
  opts: GateOptions,
): Refusal | null | Promise<Refusal | null> {
  const { trail } = call;
  trail.decision = decision;
  trail.decidedBy = by;
  if (decision.kind === 'deny') {
    trail.final = 'denied';
    return failed(decision.code ?? 'DENIED', decision.reason);
  }
  const guardFailure = runGuards(call);
  if (guardFailure) {
    trail.final = 'denied';
    return guardFailure;
  }
  if (decision.kind === 'ask' && opts.dryRun) {
    trail.final = 'ask';
    return null;
  }
  if (decision.kind === 'ask') return approvalGate(call, decision, by, opts);
  trail.final = 'allowed';
  return null;
}

async function approvalGate(
  call: CallContext,
  decision: Decision & { kind: 'ask' },
  by: string,
  opts: GateOptions,
): Promise<Refusal | null> {
  const { clock, trail } = call;
  // Waiting for a person is off the call's clock; the approval has its own timeout.
  clock.pause();
  const waiting = tracer()?.begin('approval wait', { 'toolgate.policy.decided_by': by });
  const refused = await askApproval(call, decision, by, opts);
  waiting?.set({ 'toolgate.approval.outcome': trail.approval?.outcome ?? 'allowed-once' });
  waiting?.end();
  clock.resume();
  if (refused) {
    trail.final = 'denied';
    return refused;
  }
  trail.final = 'allowed';
  return null;
}

/** The failure for a stage the caller or the deadline cut short; null when neither fired. */
function stopped({ caller, tool, clock }: CallContext): Refusal | null {
  if (caller.aborted) return failed('ABORTED_BEFORE_DISPATCH', `call to "${tool.name}" was cancelled before dispatch`);
  if (clock.expired) {
    const reason = clock.timeoutReason;
    return failed('TIMEOUT', reason !== undefined ? reason.message : `call to "${tool.name}" ran out of time`);
  }
  return null;
}

function isDecision(v: unknown): v is Decision {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  if (d.kind === 'allow') return true;
  if (d.kind === 'deny')
    return (
      typeof d.reason === 'string' &&
      d.reason !== '' &&
      (d.code === undefined || (DENY_CODES as readonly unknown[]).includes(d.code))
    );
  if (d.kind === 'ask') return d.reason === undefined || typeof d.reason === 'string';
  return false;
}

type Decided = { decision: Decision; by: string };

async function runChain(call: CallContext, info: PreExecuteInfo, timeoutMs: number | undefined): Promise<Decided> {
  const { exec, clock } = call;
  const listeners = call.hooks['tools/pre-execute'];
  const steps = call.trail.steps;
  // A failure anywhere in the chain stands even if an earlier listener catches it from next():
  // a broken policy must not be silenced into an allow.
  let chainError: unknown;
  const step = async (i: number): Promise<Decided> => {
    const entry = listeners[i];
    if (entry === undefined) return { decision: ALLOW, by: 'default' };
    const record: TrailStep = { id: entry.id, kind: 'pending' };
    steps.push(record);
    const below = restOfChain(
      () => step(i + 1),
      () => clock.at('tools/pre-execute', `listener "${entry.id}"`),
    );
    let returned: unknown;
    try {
      clock.at('tools/pre-execute', `listener "${entry.id}"`);
      const work = attempt(() => entry.fn(exec, below.next, info));
      returned = await (timeoutMs === undefined
        ? work
        : withTimeout(
            work,
            timeoutMs,
            () => new ListenerError(`pre-execute listener "${entry.id}" gave no decision within ${timeoutMs} ms`),
          ));
    } catch (err) {
      record.kind = 'error';
      chainError ??=
        err instanceof ListenerError
          ? err
          : new ListenerError(`pre-execute listener "${entry.id}" threw: ${messageOf(err)}`);
      throw chainError;
    }
    if (chainError !== undefined) throw chainError;
    try {
      return decidedBy(entry.id, record, returned, below);
    } catch (err) {
      chainError = err;
      throw err;
    }
  };
  const result = await step(0);
  if (chainError !== undefined) throw chainError;
  return result;
}

/** A listener's next() and what it brought back: the rest of the chain runs once, however often it is called. */
interface RestOfChain {
  next: () => Promise<Decision>;
  /** The rest of the chain, once next() was called. */
  readonly pending: Promise<Decided> | undefined;
  /** What it decided, once it has. */
  readonly downstream: Decided | undefined;
}

function restOfChain(rest: () => Promise<Decided>, backInListener: () => void): RestOfChain {
  let pending: Promise<Decided> | undefined;
  let downstream: Decided | undefined;
  const next = (): Promise<Decision> => {
    if (pending === undefined) {
      pending = rest().then((r) => {
        backInListener();
        return (downstream = r);
      });
      pending.catch(() => {}); // the listener may not await next(); its failure is in chainError
    }
    const decision = pending.then((r) => r.decision);
    decision.catch(() => {});
    return decision;
  };
  return {
    next,
    get pending() {
      return pending;
    },
    get downstream() {
      return downstream;
    },
  };
}

/** What listener `id` decided: what it passed on from next(), or its own decision (recorded in the trail). */
function decidedBy(id: string, record: TrailStep, returned: unknown, below: RestOfChain): Decided | Promise<Decided> {
  if (returned === undefined && below.pending !== undefined) {
    record.kind = 'pass';
    return below.pending;
  }
  if (!isDecision(returned)) {
    record.kind = 'error';
    throw new ListenerError(
      `pre-execute listener "${id}" neither called next() nor returned a decision ` +
        `({kind:'allow'} | {kind:'deny', reason} | {kind:'ask', reason?})`,
    );
  }
  if (below.downstream !== undefined && returned === below.downstream.decision) {
    record.kind = 'pass';
    return below.downstream;
  }
  record.kind = returned.kind;
  if (returned.kind !== 'allow' && returned.reason !== undefined) record.reason = returned.reason;
  return { decision: Object.freeze({ ...returned }), by: id };
}

/**
 * Said with every ask nobody could answer, in one line: the ways a person gets to answer one
 * (the channels are the approvals entry's, architecture.md §3; `dev` is the set that never asks).
 */
const HOW_TO_ANSWER =
  "to answer asks, run toolgate in a terminal, or run `serve --http` and open its /ui page, or list a channel (tty, queue, http) in the policy set's approvals entry, or use `--policy-set dev` (it never asks)";

type ApprovalTrailOutcome = NonNullable<DecisionTrail['approval']>['outcome'];

/** An approval that did not let the call run: the trail says how, the call fails APPROVAL_DENIED. */
function denied(trail: DecisionTrail, outcome: ApprovalTrailOutcome, why: string): Refusal {
  trail.approval = { outcome, reason: why };
  return failed('APPROVAL_DENIED', why);
}

async function askApproval(
  call: CallContext,
  decision: { kind: 'ask'; reason?: string },
  by: string,
  opts: GateOptions,
): Promise<Refusal | null> {
  const { exec, tool, trail } = call;
  const reason = decision.reason ?? `tool "${tool.name}" needs approval`;
  const deny = (outcome: ApprovalTrailOutcome, why: string) => denied(trail, outcome, why);
  if (opts.approval === undefined) {
    return deny('no-service', `approval required (${reason}) but no approval service is configured`);
  }
  const service = opts.approval;
  // Told before the signals are linked: a transport whose client is already gone aborts here.
  const waitEnded = opts.onApprovalWait?.() ?? (() => {});
  const timeoutMs = service.timeoutFor?.({ exec, reason, decidedBy: by }) ?? opts.approvalTimeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const linked = linkSignals([exec.signal, timeout.signal]);
  const signal = linked.signal;
  let outcome: unknown;
  try {
    const expiresAt = new Date(Date.now() + timeoutMs).toISOString();
    if (signal.aborted) throw signal.reason;
    outcome = await raceSignal(
      attempt(() => service.request({ exec, reason, decidedBy: by, expiresAt }, signal)),
      signal,
    );
  } catch (err) {
    if (exec.signal.aborted) {
      // A transport's own reason (the client went away, shutdown) is what the audit record says.
      const why: unknown = exec.signal.reason;
      trail.approval = {
        outcome: 'aborted',
        reason: why instanceof ToolgateError ? why.message : 'the caller cancelled while approval was pending',
      };
      return failed('ABORTED_BEFORE_DISPATCH', `call cancelled while waiting for approval (${reason})`);
    }
    if (timeout.signal.aborted) return deny('timeout', `approval timed out after ${timeoutMs} ms (${reason})`);
    return deny('error', `approval service failed: ${messageOf(err)} (${reason})`);
  } finally {
    clearTimeout(timer);
    linked.release();
    waitEnded();
  }
  return fromAnswer(outcome, reason, trail);
}

/** The call's fate from the channel's answer: null (allowed-once) or the denial, recorded in the trail. */
function fromAnswer(answer: unknown, reason: string, trail: DecisionTrail): Refusal | null {
  let outcome = answer;
  const deny = (o: ApprovalTrailOutcome, why: string) => denied(trail, o, why);
  // A reply that names who answered keeps the name in the trail, for the audit log.
  let answeredBy: string | undefined;
  if (typeof outcome === 'object' && outcome !== null && 'outcome' in outcome) {
    const reply = outcome as { outcome: unknown; answeredBy?: unknown };
    if (typeof reply.answeredBy === 'string') answeredBy = reply.answeredBy;
    outcome = reply.outcome;
  }
  const who = answeredBy !== undefined ? { answeredBy } : {};
  switch (outcome) {
    case 'allowed-once':
      trail.approval = { outcome, reason, ...who };
      return null;
    case 'rejected':
      trail.approval = { outcome, reason: `approval rejected (${reason})`, ...who };
      return failed('APPROVAL_DENIED', `approval rejected (${reason})`);
    case 'cancelled':
      return deny(outcome, `approval cancelled before an answer (${reason})`);
    case 'unavailable':
      return deny(outcome, `no approval channel available (${reason}); ${HOW_TO_ANSWER}`);
    default:
      return deny(
        'error',
        `approval service returned an unknown outcome ${JSON.stringify(outcome) ?? 'undefined'} (${reason})`,
      );
  }
}

function runGuards(call: CallContext): Refusal | null {
  const { exec, tool, trail, clock } = call;
  for (const g of call.hooks.guards) {
    let verdict: unknown;
    try {
      clock.at('guards', `guard "${g.id}"`);
      verdict = g.fn(exec, tool);
      // A guard is synchronous: nothing can interrupt it, so its overrun is noticed right after.
      clock.check();
      if (clock.expired) {
        trail.guard = { id: g.id, reason: 'ran past the call deadline' };
        return stopped(call);
      }
    } catch (err) {
      trail.guard = { id: g.id, reason: `threw: ${messageOf(err)}` };
      return failed('LISTENER_ERROR', `guard "${g.id}" threw: ${messageOf(err)}`);
    }
    if (verdict === undefined) continue;
    const denial = guardDenial(verdict);
    if (denial === undefined) {
      // Fail closed: an async guard or a boolean is a bug, and a bug must not read as permission.
      trail.guard = { id: g.id, reason: 'returned neither a string nor undefined' };
      return failed(
        'LISTENER_ERROR',
        `guard "${g.id}" returned ${typeof verdict}; a guard returns a denial reason (string or {reason, code}) or undefined`,
      );
    }
    const reason = denial.reason === '' ? `denied by guard "${g.id}"` : denial.reason;
    trail.guard = { id: g.id, reason };
    return failed(denial.code, reason);
  }
  return null;
}

function guardDenial(v: unknown): { reason: string; code: 'GUARD_DENIED' | DenyCode } | undefined {
  if (typeof v === 'string') return { reason: v, code: 'GUARD_DENIED' };
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.reason !== 'string' || !(DENY_CODES as readonly unknown[]).includes(o.code)) return undefined;
  return { reason: o.reason, code: o.code as DenyCode };
}
