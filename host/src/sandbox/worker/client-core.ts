// One call's bounds on what its module asks of the MCP client, shared by toolgate:mcp's functions
// (client-functions.ts) and hyper-mcp's (hyper-functions.ts): each crossing to the host blocks the
// instance until the answer, and past a bound nothing crosses. Nothing is queued; a notice past a
// bound is dropped and counted (docs/authoring.md, "Host functions of the hyper-mcp interface").
import { tokenBucket } from '../token-bucket.js';
import type { CallContext } from '@extism/extism';
import { ClientOp } from '../channel.js';

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

/** What both sets of functions share: one call's bounds, and the crossing to the host. */
export interface ClientCore {
  /** A log line's crossing (op LOG or HYPER_LOG) under the log budget and the notice rate; 1 when dropped. */
  log(op: number, payload: Uint8Array, textBytes: number): number;
  /** A progress crossing under the per-call cap and the notice rate; 1 when dropped. */
  progress(op: number, payload: Uint8Array): number;
  /** A notification crossing under the per-call cap and the notice rate; 1 when dropped. */
  notify(payload: Uint8Array): number;
  /** A request under the per-call cap: the host's answer ({"error": ...} past the cap), copied into the module. */
  request(
    ctx: CallContext,
    op: number,
    params: Uint8Array,
    what: string,
    shape?: (answer: Uint8Array) => Uint8Array,
  ): bigint;
}

const NOT_SENT = 1;

export function createClientCore(deps: ClientFunctionDeps): { core: ClientCore; reset(): number } {
  let progressSent = 0;
  let requests = 0;
  let notifications = 0;
  let dropped = 0;
  // the call's notice rate: NOTICE_BURST tokens, refilled at NOTICES_PER_SECOND
  const bucket = tokenBucket(NOTICE_BURST, NOTICES_PER_SECOND);
  /** Counts a notice dropped past a bound; what the function answers the module. */
  const drop = (): number => {
    dropped++;
    return NOT_SENT;
  };

  const core: ClientCore = {
    log(op, payload, textBytes) {
      if (!deps.takeLogBudget(textBytes)) return NOT_SENT; // counted as a dropped log line
      if (!bucket.take()) return drop();
      return deps.ask(op, payload).aux;
    },
    progress(op, payload) {
      if (progressSent >= MAX_PROGRESS_PER_CALL || !bucket.take()) return drop();
      progressSent++;
      return deps.ask(op, payload).aux;
    },
    notify(payload) {
      if (notifications >= MAX_NOTIFICATIONS_PER_CALL || !bucket.take()) return drop();
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
  return {
    core,
    reset() {
      const was = dropped;
      progressSent = 0;
      requests = 0;
      notifications = 0;
      dropped = 0;
      bucket.refill();
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
