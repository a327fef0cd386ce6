// The toolgate:mcp host functions (and hyper-mcp's, hyper-functions.ts) as an instance serves
// them: each goes to the host (which talks to the MCP client) and blocks this thread until the
// answer comes, like http_request. Per-call bounds are kept here, so a module that loops on them
// never reaches the host past them: nothing is queued, a notice past a bound is dropped and counted.
import type { CallContext } from '@extism/extism';
import { ClientOp } from '../channel.js';
import { createHyperFunctions } from './hyper-functions.js';

/** Progress notifications one call may send; past it progress() answers 1 without crossing. */
export const MAX_PROGRESS_PER_CALL = 256;
/** Elicitation, sampling and roots requests one call may make (all kinds together). */
export const MAX_CLIENT_REQUESTS_PER_CALL = 16;
/** List-changed, resource-updated and elicitation-complete notifications one call may send. */
export const MAX_NOTIFICATIONS_PER_CALL = 32;
/**
 * Notices (log lines, progress, notifications) one call may send per second, after a burst of
 * NOTICE_BURST: a token bucket, so a call that logs steadily is not cut off, and one that floods
 * costs the host at most this many crossings a second. Past it a notice is dropped and counted.
 */
export const NOTICES_PER_SECOND = 64;
export const NOTICE_BURST = 256;

export type HostFn = (ctx: CallContext, ...args: (number | bigint)[]) => number | bigint | void;

export interface ClientFunctionDeps {
  /** Sends one CLIENT_REQUEST (op: ClientOp) and returns the host's answer. */
  ask(op: number, payload: Uint8Array): { aux: number; data: Uint8Array };
  /** Counts a log line against the call's log budget; false when over it (the line is dropped). */
  takeLogBudget(bytes: number): boolean;
  /** Charges host memory to the call's alloc budget (throws past it). */
  charge(size: number, what: string): void;
}

const encoder = new TextEncoder();

export interface ClientFunctions {
  /** toolgate:mcp's functions. */
  functions: Record<string, HostFn>;
  /** hyper-mcp's functions (extism:host/user), served to a module.abi hyper-mcp manifest's module. */
  hyperFunctions: Record<string, HostFn>;
  /** Sends a line the module logged some other way (Extism log_*, WASI stdout) to the client; budget already taken. */
  forwardLog(level: number, bytes: Uint8Array): void;
  /** Starts a call's bounds afresh; returns how many notices the last call dropped past them. */
  reset(): number;
}

/** What both sets of functions share: one call's bounds, and the crossing to the host. */
export interface ClientCore {
  /** A log line's crossing (op LOG or HYPER_LOG) under the log budget and the notice rate; 1 when dropped. */
  log(op: number, payload: Uint8Array, textBytes: number): number;
  /** A progress crossing under the per-call cap and the notice rate; 1 when dropped. */
  progress(op: number, payload: Uint8Array): number;
  /** A notification crossing under the per-call cap and the notice rate; 1 when dropped. */
  notify(payload: Uint8Array): number;
  /** A request under the per-call cap: the host's answer ({"error": ...} past the cap), copied into the module. */
  request(ctx: CallContext, op: number, params: Uint8Array, what: string, shape?: (answer: Uint8Array) => Uint8Array): bigint;
}

const NOT_SENT = 1;

export function createClientFunctions(deps: ClientFunctionDeps): ClientFunctions {
  let progressSent = 0;
  let requests = 0;
  let notifications = 0;
  let dropped = 0;
  const bucket = { tokens: NOTICE_BURST, at: performance.now() };
  /** One token of the call's notice rate; false (counted as dropped) when none is left. */
  const takeNotice = (): boolean => {
    const now = performance.now();
    bucket.tokens = Math.min(NOTICE_BURST, bucket.tokens + ((now - bucket.at) / 1000) * NOTICES_PER_SECOND);
    bucket.at = now;
    if (bucket.tokens < 1) {
      dropped++;
      return false;
    }
    bucket.tokens -= 1;
    return true;
  };

  const core: ClientCore = {
    log(op, payload, textBytes) {
      if (!deps.takeLogBudget(textBytes) || !takeNotice()) return NOT_SENT;
      return deps.ask(op, payload).aux;
    },
    progress(op, payload) {
      if (progressSent >= MAX_PROGRESS_PER_CALL || !takeNotice()) return NOT_SENT;
      progressSent++;
      return deps.ask(op, payload).aux;
    },
    notify(payload) {
      if (notifications >= MAX_NOTIFICATIONS_PER_CALL) {
        dropped++;
        return NOT_SENT;
      }
      if (!takeNotice()) return NOT_SENT;
      notifications++;
      return deps.ask(ClientOp.NOTIFY, payload).aux;
    },
    request(ctx, op, params, what, shape = (a) => a) {
      let answer: Uint8Array;
      if (requests >= MAX_CLIENT_REQUESTS_PER_CALL) {
        const message = `a call may make at most ${MAX_CLIENT_REQUESTS_PER_CALL} elicitation, sampling and roots requests`;
        answer = encoder.encode(JSON.stringify({ error: { code: 'DENIED', message } }));
      } else {
        requests++;
        answer = deps.ask(op, params).data.slice(); // a copy out of the shared buffer
      }
      answer = shape(answer);
      deps.charge(answer.length, `${what} answer`);
      return ctx.store(answer);
    },
  };

  const request = (op: number, what: string) => (ctx: CallContext, addr: number | bigint): bigint =>
    core.request(ctx, op, blockBytes(ctx, addr, `toolgate:mcp.${what}`), `toolgate:mcp.${what}`);

  const functions: Record<string, HostFn> = {
    log: (ctx, level, addr) => {
      const lv = Number(level);
      if (!Number.isInteger(lv) || lv < 0 || lv > 7) throw new Error(`toolgate:mcp.log: level ${lv} is not 0 (debug) to 7 (emergency)`);
      const bytes = blockBytes(ctx, addr, 'toolgate:mcp.log');
      return core.log(ClientOp.LOG, logPayload(lv, bytes), bytes.length);
    },
    progress: (ctx, progress, total, addr) => {
      const p = Number(progress);
      if (!Number.isFinite(p)) throw new Error(`toolgate:mcp.progress: progress ${p} is not a finite number`);
      return core.progress(ClientOp.PROGRESS, progressPayload(p, Number(total), blockBytes(ctx, addr, 'toolgate:mcp.progress')));
    },
    elicit: request(ClientOp.ELICIT, 'elicit'),
    sample: request(ClientOp.SAMPLE, 'sample'),
    roots: request(ClientOp.ROOTS, 'roots'),
  };
  return {
    functions,
    hyperFunctions: createHyperFunctions(core),
    forwardLog(level: number, bytes: Uint8Array): void {
      deps.ask(ClientOp.LOG, logPayload(level, bytes));
    },
    reset() {
      const was = dropped;
      progressSent = 0;
      requests = 0;
      notifications = 0;
      dropped = 0;
      bucket.tokens = NOTICE_BURST;
      bucket.at = performance.now();
      return was;
    },
  };
}

/** The bytes of the module's block at `addr` (0 is empty). */
export function blockBytes(ctx: CallContext, addr: number | bigint, what: string): Uint8Array {
  if (BigInt(addr) === 0n) return new Uint8Array(0);
  const block = ctx.read(BigInt(addr));
  if (block === null) throw new Error(`${what}: the address is not a valid block`);
  return block.bytes();
}

/** LOG: the level byte, then the line. */
function logPayload(level: number, bytes: Uint8Array): Uint8Array {
  const payload = new Uint8Array(1 + bytes.length);
  payload[0] = level;
  payload.set(bytes, 1);
  return payload;
}

/** PROGRESS: progress and total as little-endian float64 (NaN: no total), then the message. */
function progressPayload(progress: number, total: number, message: Uint8Array): Uint8Array {
  const payload = new Uint8Array(16 + message.length);
  const view = new DataView(payload.buffer);
  view.setFloat64(0, progress, true);
  // total <= 0 or not finite: none
  view.setFloat64(8, Number.isFinite(total) && total > 0 ? total : Number.NaN, true);
  payload.set(message, 16);
  return payload;
}
