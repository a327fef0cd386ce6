// The toolgate:mcp host functions (and hyper-mcp's, hyper-functions.ts) as an instance serves
// them: each goes to the host (which talks to the MCP client) and blocks this thread until the
// answer comes, like http_request. Per-call bounds are kept in client-core.ts, so a module that loops
// on them never reaches the host past them: nothing is queued, a notice past a bound is dropped.
import type { CallContext } from '@extism/extism';
import { ClientOp } from '../channel.js';
import { blockBytes, createClientCore, type ClientFunctionDeps, type HostFn } from './client-core.js';
import { createHyperFunctions } from './hyper-functions.js';

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

export function createClientFunctions(deps: ClientFunctionDeps): ClientFunctions {
  const { core, reset } = createClientCore(deps);

  const request =
    (op: number, what: string) =>
    (ctx: CallContext, addr: number | bigint): bigint =>
      core.request(ctx, op, blockBytes(ctx, addr, `toolgate:mcp.${what}`), `toolgate:mcp.${what}`);

  const functions: Record<string, HostFn> = {
    log: (ctx, level, addr) => {
      const lv = Number(level);
      if (!Number.isInteger(lv) || lv < 0 || lv > 7)
        throw new Error(`toolgate:mcp.log: level ${lv} is not 0 (debug) to 7 (emergency)`);
      const bytes = blockBytes(ctx, addr, 'toolgate:mcp.log');
      return core.log(ClientOp.LOG, logPayload(lv, bytes), bytes.length);
    },
    progress: (ctx, progress, total, addr) => {
      const p = Number(progress);
      if (!Number.isFinite(p)) throw new Error(`toolgate:mcp.progress: progress ${p} is not a finite number`);
      return core.progress(
        ClientOp.PROGRESS,
        progressPayload(p, Number(total), blockBytes(ctx, addr, 'toolgate:mcp.progress')),
      );
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
    reset,
  };
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
