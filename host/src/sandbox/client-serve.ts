// The host side of toolgate:mcp: a module's log line, progress or request, answered while its
// worker waits. Requests are bounded by the call: the call's signal cancels them and they get only
// the time left before its deadline. The answer is what the worker hands the module: the client's
// result, or {"error": {code, message}} with any ClientRefusalCode (PENDING included) as it came.
import { CLIENT_LOG_LEVELS, ToolFailure, type CallClient, type ClientAnswer, type ClientLogLevel, type ClientRequestKind, type JsonObject } from '../tool/index.js';
import type { CallControl } from './call-control.js';
import { ClientOp } from './channel.js';
import { cleanLogLine } from './sanitize.js';
import type { LogLevelName } from './worker/protocol.js';

export interface ClientReply {
  aux: number;
  data: Uint8Array;
}

export interface ClientServeSetup {
  tool: string;
  secrets: readonly string[];
  /** The server log gets every line the module sends its client too. */
  onLog(level: LogLevelName, line: string): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SENT = 0;
const NOT_SENT = 1;

const SERVER_LEVEL: Record<ClientLogLevel, LogLevelName> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** The request each toolgate:mcp request op carries. */
const REQUEST_KIND: Record<typeof ClientOp.ELICIT | typeof ClientOp.SAMPLE | typeof ClientOp.ROOTS, ClientRequestKind> = {
  [ClientOp.ELICIT]: 'elicitation',
  [ClientOp.SAMPLE]: 'sampling',
  [ClientOp.ROOTS]: 'roots',
};

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function answerBytes(answer: ClientAnswer): Uint8Array {
  const json = answer.ok ? answer.result : { error: { code: answer.code, message: answer.message } };
  return encoder.encode(JSON.stringify(json));
}

/** Serves one CLIENT_REQUEST. Throws only the call's own failure (deadline, cancel). */
export async function serveClient(
  op: number,
  data: Uint8Array,
  client: CallClient | undefined,
  ctl: CallControl,
  setup: ClientServeSetup,
): Promise<ClientReply> {
  const done = (sent: boolean): ClientReply => ({ aux: sent ? SENT : NOT_SENT, data: new Uint8Array(0) });
  const guarded = async <T>(p: Promise<T>, fallback: T): Promise<T> => {
    try {
      return await ctl.race(p);
    } catch (err) {
      if (err instanceof ToolFailure && ctl.failure === err) throw err;
      return fallback;
    }
  };
  switch (op) {
    case ClientOp.LOG: {
      const level = CLIENT_LOG_LEVELS[data[0] ?? 0] ?? 'info';
      const line = cleanLogLine(decoder.decode(data.subarray(1)), setup.secrets);
      setup.onLog(SERVER_LEVEL[level], line);
      return done(client !== undefined && (await guarded(client.log(level, line, setup.tool), false)));
    }
    case ClientOp.PROGRESS: {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const progress = view.getFloat64(0, true);
      const total = view.getFloat64(8, true);
      const message = data.length > 16 ? cleanLogLine(decoder.decode(data.subarray(16)), setup.secrets) : undefined;
      if (client === undefined) return done(false);
      return done(await guarded(client.progress(progress, Number.isNaN(total) ? undefined : total, message), false));
    }
    case ClientOp.ELICIT:
    case ClientOp.SAMPLE:
    case ClientOp.ROOTS: {
      const kind = REQUEST_KIND[op];
      let params: unknown;
      try {
        params = JSON.parse(decoder.decode(data));
      } catch {
        params = undefined;
      }
      if (!isObject(params)) {
        return { aux: SENT, data: answerBytes({ ok: false, code: 'INVALID_REQUEST', message: `${kind} params must be a JSON object` }) };
      }
      if (client === undefined) {
        return { aux: SENT, data: answerBytes({ ok: false, code: 'UNAVAILABLE', message: `${kind} is unavailable: the call has no client` }) };
      }
      const failedAnswer: ClientAnswer = { ok: false, code: 'FAILED', message: `${kind} request failed` };
      const answer = await guarded(client.request({ kind, params }, ctl.signal, ctl.remainingMs()), failedAnswer);
      return { aux: SENT, data: answerBytes(answer) };
    }
    default:
      throw new ToolFailure('SANDBOX_ERROR', `unknown toolgate:mcp request ${op} from the instance`);
  }
}
