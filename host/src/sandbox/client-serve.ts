// The host side of toolgate:mcp: a module's log line, progress or request, answered while its
// worker waits. Requests are bounded by the call: the call's signal cancels them and they get only
// the time left before its deadline. The answer is what the worker hands the module: the client's
// result, or {"error": {code, message}} with any ClientRefusalCode (PENDING included) as it came.
import {
  CLIENT_LOG_LEVELS,
  ToolFailure,
  type CallClient,
  type ClientAnswer,
  type ClientLogLevel,
  type ClientRequest,
  type ClientRequestKind,
  type JsonObject,
} from '../tool/index.js';
import type { CallControl } from './call-control.js';
import { ClientOp } from './channel.js';
import {
  hyperElicitation,
  hyperLog,
  hyperNotification,
  hyperProgress,
  MAX_JSON_DEPTH,
  nestsDeeper,
} from './hyper-serve.js';
import { cleanLogLine } from './sanitize.js';
import type { LogLevelName } from './worker/protocol.js';

export interface ClientReply {
  aux: number;
  data: Uint8Array;
}

export interface ClientServeSetup {
  tool: string;
  secrets: readonly string[];
  /** capabilities.allowed_hosts: where a hyper-mcp URL-mode elicitation may send the user. */
  allowedHosts: readonly string[];
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
const REQUEST_KIND: Record<typeof ClientOp.ELICIT | typeof ClientOp.SAMPLE | typeof ClientOp.ROOTS, ClientRequestKind> =
  {
    [ClientOp.ELICIT]: 'elicitation',
    [ClientOp.SAMPLE]: 'sampling',
    [ClientOp.ROOTS]: 'roots',
  };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function answerBytes(answer: ClientAnswer): Uint8Array {
  const json = answer.ok ? answer.result : { error: { code: answer.code, message: answer.message } };
  return encoder.encode(JSON.stringify(json));
}

type Guarded = <T>(p: Promise<T>, fallback: T) => Promise<T>;

interface Serving {
  client: CallClient | undefined;
  ctl: CallControl;
  setup: ClientServeSetup;
  guarded: Guarded;
}

const done = (sent: boolean): ClientReply => ({ aux: sent ? SENT : NOT_SENT, data: new Uint8Array(0) });
const refused = (code: 'INVALID_REQUEST' | 'UNAVAILABLE', message: string): ClientReply => ({
  aux: SENT,
  data: answerBytes({ ok: false, code, message }),
});

async function serveLog(s: Serving, level: ClientLogLevel, text: string): Promise<ClientReply> {
  const line = cleanLogLine(text, s.setup.secrets);
  s.setup.onLog(SERVER_LEVEL[level], line);
  return done(s.client !== undefined && (await s.guarded(s.client.log(level, line, s.setup.tool), false)));
}

async function serveProgress(
  s: Serving,
  progress: number,
  total: number | undefined,
  text: string | undefined,
): Promise<ClientReply> {
  const message = text === undefined || text === '' ? undefined : cleanLogLine(text, s.setup.secrets);
  if (s.client === undefined) return done(false);
  return done(await s.guarded(s.client.progress(progress, total, message), false));
}

/**
 * How long past the call's deadline a request bounded by that deadline alone may wait: the clock's
 * abort ends it at the deadline (architecture.md §3.3); this only keeps the client's own request
 * timer behind the clock's, so it never answers the tool "timed out" and lets the call finish as
 * if it had not run out (docs/decisions.md, "Red team round: completions and what else a client
 * names").
 */
const BEHIND_THE_CLOCK_MS = 1_000;

/** The bound a request's own timer gets: the module's own shorter wait, else behind the call's deadline. */
function requestBound(ctl: CallControl, timeoutMs: number): number {
  const left = ctl.remainingMs();
  if (timeoutMs < left) return timeoutMs;
  return left > 0 ? left + BEHIND_THE_CLOCK_MS : 0;
}

/** One request to the client (through the call's policy gate), its answer as the worker hands it on. */
async function serveRequest(
  s: Serving,
  req: ClientRequest,
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<ClientReply> {
  if (s.client === undefined) return refused('UNAVAILABLE', `${req.kind} is unavailable: the call has no client`);
  const failedAnswer: ClientAnswer = { ok: false, code: 'FAILED', message: `${req.kind} request failed` };
  const answer = await s.guarded(s.client.request(req, s.ctl.signal, requestBound(s.ctl, timeoutMs)), failedAnswer);
  return { aux: SENT, data: answerBytes(answer) };
}

/** hyper-mcp's functions (hyper-serve.ts parses what the module sent); undefined for another op. */
async function serveHyper(op: number, data: Uint8Array, s: Serving): Promise<ClientReply | undefined> {
  switch (op) {
    case ClientOp.HYPER_LOG: {
      const r = hyperLog(data);
      return r.ok ? serveLog(s, r.value.level, r.value.line) : done(false);
    }
    case ClientOp.HYPER_PROGRESS: {
      const r = hyperProgress(data);
      return r.ok ? serveProgress(s, r.value.progress, r.value.total, r.value.message) : done(false);
    }
    case ClientOp.HYPER_ELICIT: {
      const r = hyperElicitation(data, s.setup.allowedHosts);
      if (!r.ok) return refused('INVALID_REQUEST', r.message);
      const req: ClientRequest = {
        kind: 'elicitation',
        params: r.value.params,
        ...(r.value.urlChecked ? { urlChecked: true as const } : {}),
      };
      return serveRequest(s, req, r.value.timeoutMs);
    }
    case ClientOp.NOTIFY: {
      const r = hyperNotification(data);
      if (!r.ok || s.client?.notify === undefined) return done(false);
      return done(await s.guarded(s.client.notify(r.value.method, r.value.params), false));
    }
    default:
      return undefined;
  }
}

/** Serves one CLIENT_REQUEST. Throws only the call's own failure (deadline, cancel). */
export async function serveClient(
  op: number,
  data: Uint8Array,
  client: CallClient | undefined,
  ctl: CallControl,
  setup: ClientServeSetup,
): Promise<ClientReply> {
  const guarded: Guarded = async (p, fallback) => {
    try {
      return await ctl.race(p);
    } catch (err) {
      if (err instanceof ToolFailure && ctl.failure === err) throw err;
      return fallback;
    }
  };
  const s: Serving = { client, ctl, setup, guarded };
  switch (op) {
    case ClientOp.LOG:
      return serveLog(s, CLIENT_LOG_LEVELS[data[0] ?? 0] ?? 'info', decoder.decode(data.subarray(1)));
    case ClientOp.PROGRESS: {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const total = view.getFloat64(8, true);
      return serveProgress(
        s,
        view.getFloat64(0, true),
        Number.isNaN(total) ? undefined : total,
        data.length > 16 ? decoder.decode(data.subarray(16)) : undefined,
      );
    }
    case ClientOp.ELICIT:
    case ClientOp.SAMPLE:
    case ClientOp.ROOTS: {
      const kind = REQUEST_KIND[op];
      if (nestsDeeper(data, MAX_JSON_DEPTH))
        return refused('INVALID_REQUEST', `${kind} params nest deeper than ${MAX_JSON_DEPTH} levels`);
      let params: unknown;
      try {
        params = JSON.parse(decoder.decode(data));
      } catch {
        params = undefined;
      }
      if (!isObject(params)) return refused('INVALID_REQUEST', `${kind} params must be a JSON object`);
      return serveRequest(s, { kind, params });
    }
    default: {
      const reply = await serveHyper(op, data, s);
      if (reply === undefined)
        throw new ToolFailure('SANDBOX_ERROR', `unknown toolgate:mcp request ${op} from the instance`);
      return reply;
    }
  }
}
