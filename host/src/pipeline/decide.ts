// Stages 2 and 3: the pre-execute waterfall, approval for 'ask', then guards. Shared by a real call
// and by `policy explain` (dryRun), so what explain prints is what a call would do.
import type { ExecIdentity, Tool } from '../tool/index.js';
import { ListenerError, attempt, errorMessage, linkSignals, raceSignal, withTimeout } from './async.js';
import type { HookEntry } from './hooks.js';
import { failed, type CallState } from './outcome.js';
import type {
  ApprovalService, Decision, DecisionTrail, Guard, PreExecuteInfo, PreExecuteListener, TrailStep,
} from './types.js';

const ALLOW: Decision = Object.freeze({ kind: 'allow' });

export interface GateOptions {
  dryRun: boolean;
  listenerTimeoutMs: number;
  approval: ApprovalService | undefined;
  approvalTimeoutMs: number;
}

export function newTrail(): DecisionTrail {
  return { decision: null, decidedBy: null, steps: [], final: 'not-reached' };
}

/** Runs pre-execute, approval and guards; returns null when the call may go on, else its failure. */
export async function gate(
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  listeners: readonly HookEntry<PreExecuteListener>[],
  guards: readonly HookEntry<Guard>[],
  trail: DecisionTrail,
  opts: GateOptions,
): Promise<(CallState & { ok: false }) | null> {
  let decided: { decision: Decision; by: string };
  try {
    decided = await runChain(exec, listeners, { tool, dryRun: opts.dryRun }, trail.steps, opts.listenerTimeoutMs);
  } catch (err) {
    trail.final = 'denied';
    return failed('LISTENER_ERROR', errorMessage(err));
  }
  const { decision, by } = decided;
  trail.decision = decision;
  trail.decidedBy = by;
  if (decision.kind === 'deny') {
    trail.final = 'denied';
    return failed('DENIED', decision.reason);
  }
  if (decision.kind === 'ask') {
    if (opts.dryRun) {
      trail.final = 'ask';
    } else {
      const refused = await askApproval(exec, tool, decision, by, trail, opts);
      if (refused) {
        trail.final = 'denied';
        return refused;
      }
    }
  }
  const guardFailure = runGuards(exec, tool, guards, trail);
  if (guardFailure) {
    trail.final = 'denied';
    return guardFailure;
  }
  if (trail.final !== 'ask') trail.final = 'allowed';
  return null;
}

function isDecision(v: unknown): v is Decision {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  if (d.kind === 'allow') return true;
  if (d.kind === 'deny') return typeof d.reason === 'string' && d.reason !== '';
  if (d.kind === 'ask') return d.reason === undefined || typeof d.reason === 'string';
  return false;
}

type Decided = { decision: Decision; by: string };

async function runChain(
  exec: Readonly<ExecIdentity>,
  listeners: readonly HookEntry<PreExecuteListener>[],
  info: PreExecuteInfo,
  steps: TrailStep[],
  timeoutMs: number,
): Promise<Decided> {
  // A failure anywhere in the chain stands even if an earlier listener catches it from next():
  // a broken policy must not be silenced into an allow.
  let chainError: unknown;
  const step = async (i: number): Promise<Decided> => {
    const entry = listeners[i];
    if (entry === undefined) return { decision: ALLOW, by: 'default' };
    const record: TrailStep = { id: entry.id, kind: 'pending' };
    steps.push(record);
    let pending: Promise<Decided> | undefined;
    let downstream: Decided | undefined;
    const next = (): Promise<Decision> => {
      if (pending === undefined) {
        pending = step(i + 1).then((r) => (downstream = r));
        pending.catch(() => {}); // the listener may not await next(); its failure is in chainError
      }
      const decision = pending.then((r) => r.decision);
      decision.catch(() => {});
      return decision;
    };
    let returned: unknown;
    try {
      returned = await withTimeout(
        attempt(() => entry.fn(exec, next, info)),
        timeoutMs,
        () => new ListenerError(`pre-execute listener "${entry.id}" gave no decision within ${timeoutMs} ms`),
      );
    } catch (err) {
      record.kind = 'error';
      chainError ??= err instanceof ListenerError ? err : new ListenerError(`pre-execute listener "${entry.id}" threw: ${errorMessage(err)}`);
      throw chainError;
    }
    if (chainError !== undefined) throw chainError;
    if (returned === undefined && pending !== undefined) {
      record.kind = 'pass';
      return pending;
    }
    if (!isDecision(returned)) {
      record.kind = 'error';
      chainError = new ListenerError(
        `pre-execute listener "${entry.id}" neither called next() nor returned a decision ` +
          `({kind:'allow'} | {kind:'deny', reason} | {kind:'ask', reason?})`,
      );
      throw chainError;
    }
    if (downstream !== undefined && returned === downstream.decision) {
      record.kind = 'pass';
      return downstream;
    }
    record.kind = returned.kind;
    if (returned.kind !== 'allow' && returned.reason !== undefined) record.reason = returned.reason;
    return { decision: Object.freeze({ ...returned }), by: entry.id };
  };
  const result = await step(0);
  if (chainError !== undefined) throw chainError;
  return result;
}

async function askApproval(
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  decision: { kind: 'ask'; reason?: string },
  by: string,
  trail: DecisionTrail,
  opts: GateOptions,
): Promise<(CallState & { ok: false }) | null> {
  const reason = decision.reason ?? `tool "${tool.name}" needs approval`;
  const deny = (outcome: NonNullable<DecisionTrail['approval']>['outcome'], why: string) => {
    trail.approval = { outcome, reason: why };
    return failed('APPROVAL_DENIED', why);
  };
  if (opts.approval === undefined) {
    return deny('no-service', `approval required (${reason}) but no approval service is configured`);
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), opts.approvalTimeoutMs);
  const linked = linkSignals([exec.signal, timeout.signal]);
  const signal = linked.signal;
  const service = opts.approval;
  let outcome: unknown;
  try {
    outcome = await raceSignal(attempt(() => service.request({ exec, reason, decidedBy: by }, signal)), signal);
  } catch (err) {
    if (exec.signal.aborted) {
      trail.approval = { outcome: 'aborted', reason: 'the caller cancelled while approval was pending' };
      return failed('ABORTED_BEFORE_DISPATCH', `call cancelled while waiting for approval (${reason})`);
    }
    if (timeout.signal.aborted) return deny('timeout', `approval timed out after ${opts.approvalTimeoutMs} ms (${reason})`);
    return deny('error', `approval service failed: ${errorMessage(err)} (${reason})`);
  } finally {
    clearTimeout(timer);
    linked.release();
  }
  switch (outcome) {
    case 'allowed-once':
      trail.approval = { outcome, reason };
      return null;
    case 'rejected':
      return deny(outcome, `approval rejected (${reason})`);
    case 'cancelled':
      return deny(outcome, `approval cancelled before an answer (${reason})`);
    case 'unavailable':
      return deny(outcome, `no approval channel available (${reason})`);
    default:
      return deny('error', `approval service returned an unknown outcome ${JSON.stringify(outcome) ?? 'undefined'} (${reason})`);
  }
}

function runGuards(
  exec: Readonly<ExecIdentity>,
  tool: Tool,
  guards: readonly HookEntry<Guard>[],
  trail: DecisionTrail,
): (CallState & { ok: false }) | null {
  for (const g of guards) {
    let verdict: unknown;
    try {
      verdict = g.fn(exec, tool);
    } catch (err) {
      trail.guard = { id: g.id, reason: `threw: ${errorMessage(err)}` };
      return failed('LISTENER_ERROR', `guard "${g.id}" threw: ${errorMessage(err)}`);
    }
    if (verdict === undefined) continue;
    if (typeof verdict !== 'string') {
      // Fail closed: an async guard or a boolean is a bug, and a bug must not read as permission.
      trail.guard = { id: g.id, reason: 'returned neither a string nor undefined' };
      return failed('LISTENER_ERROR', `guard "${g.id}" returned ${typeof verdict}; a guard returns a denial reason (string) or undefined`);
    }
    const reason = verdict === '' ? `denied by guard "${g.id}"` : verdict;
    trail.guard = { id: g.id, reason };
    return failed('GUARD_DENIED', reason);
  }
  return null;
}
