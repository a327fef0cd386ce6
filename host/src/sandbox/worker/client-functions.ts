// The toolgate:mcp host functions as an instance serves them: each goes to the host (which talks to
// the MCP client) and blocks this thread until the answer comes, like http_request. Per-call bounds
// are kept here, so a module that loops on them never reaches the host past them.
import type { CallContext } from '@extism/extism';
import { ClientOp } from '../channel.js';

/** Progress notifications one call may send; past it progress() answers 1 without crossing. */
export const MAX_PROGRESS_PER_CALL = 256;
/** Elicitation, sampling and roots requests one call may make (all kinds together). */
export const MAX_CLIENT_REQUESTS_PER_CALL = 16;

type HostFn = (ctx: CallContext, ...args: (number | bigint)[]) => number | bigint | void;

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
  functions: Record<string, HostFn>;
  /** Sends a line the module logged some other way (Extism log_*, WASI stdout) to the client; budget already taken. */
  forwardLog(level: number, bytes: Uint8Array): void;
  reset(): void;
}

export function createClientFunctions(deps: ClientFunctionDeps): ClientFunctions {
  let progressSent = 0;
  let requests = 0;

  const ask = (op: number, payload: Uint8Array): { aux: number; data: Uint8Array } => deps.ask(op, payload);

  const request = (op: number, what: string) => (ctx: CallContext, addr: number | bigint): bigint => {
    const params = blockBytes(ctx, addr, what);
    let answer: Uint8Array;
    if (requests >= MAX_CLIENT_REQUESTS_PER_CALL) {
      const message = `a call may make at most ${MAX_CLIENT_REQUESTS_PER_CALL} elicitation, sampling and roots requests`;
      answer = encoder.encode(JSON.stringify({ error: { code: 'DENIED', message } }));
    } else {
      requests++;
      answer = ask(op, params).data;
    }
    deps.charge(answer.length, `toolgate:mcp.${what} answer`);
    return ctx.store(answer.slice()); // a copy out of the shared buffer
  };

  const functions: Record<string, HostFn> = {
    log: (ctx, level, addr) => {
      const lv = Number(level);
      if (!Number.isInteger(lv) || lv < 0 || lv > 7) throw new Error(`toolgate:mcp.log: level ${lv} is not 0 (debug) to 7 (emergency)`);
      const bytes = blockBytes(ctx, addr, 'log');
      if (!deps.takeLogBudget(bytes.length)) return 1;
      return ask(ClientOp.LOG, logPayload(lv, bytes)).aux;
    },
    progress: (ctx, progress, total, addr) => {
      const p = Number(progress);
      if (!Number.isFinite(p)) throw new Error(`toolgate:mcp.progress: progress ${p} is not a finite number`);
      if (progressSent >= MAX_PROGRESS_PER_CALL) return 1;
      progressSent++;
      return ask(ClientOp.PROGRESS, progressPayload(p, Number(total), blockBytes(ctx, addr, 'progress'))).aux;
    },
    elicit: request(ClientOp.ELICIT, 'elicit'),
    sample: request(ClientOp.SAMPLE, 'sample'),
    roots: request(ClientOp.ROOTS, 'roots'),
  };
  return {
    functions,
    forwardLog(level: number, bytes: Uint8Array): void {
      ask(ClientOp.LOG, logPayload(level, bytes));
    },
    reset() {
      progressSent = 0;
      requests = 0;
    },
  };
}

/** The bytes of the module's block at `addr` (0 is empty). */
function blockBytes(ctx: CallContext, addr: number | bigint, what: string): Uint8Array {
  if (BigInt(addr) === 0n) return new Uint8Array(0);
  const block = ctx.read(BigInt(addr));
  if (block === null) throw new Error(`toolgate:mcp.${what}: the address is not a valid block`);
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
