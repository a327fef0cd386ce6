// What a running tool may ask of the client (the MCP session) that made the call: log lines,
// progress, and requests the client answers (elicitation, sampling). The transport provides the
// link; the pipeline puts policy in front of the requests before a tool sees it.
import type { JsonObject } from './types.js';

/** MCP log levels, least to most severe (RFC 5424 order, as notifications/message uses them). */
export const CLIENT_LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type ClientLogLevel = (typeof CLIENT_LOG_LEVELS)[number];

/** What a tool may ask the client to do; a manifest lists the ones its module may use. */
export const CLIENT_FEATURES = ['logging', 'progress', 'elicitation', 'sampling'] as const;
export type ClientFeature = (typeof CLIENT_FEATURES)[number];

/** The requests a client answers, each checked by policy first. */
export type ClientRequestKind = 'elicitation' | 'sampling';

export interface ClientRequest {
  readonly kind: ClientRequestKind;
  /** elicitation/create or sampling/createMessage params, as the tool sent them. */
  readonly params: Readonly<JsonObject>;
}

/**
 * Why a request got no answer from the client: DENIED (a policy), UNAVAILABLE (no client, or one
 * that did not declare the capability), INVALID_REQUEST (params the protocol refuses), FAILED (the
 * client answered with an error, or did not answer in time).
 */
export type ClientRefusalCode = 'DENIED' | 'UNAVAILABLE' | 'INVALID_REQUEST' | 'FAILED';

export type ClientAnswer = { ok: true; result: JsonObject } | { ok: false; code: ClientRefusalCode; message: string };

/** The transport's side: one per call, bound to the session that made it. */
export interface CallClient {
  /** Sends notifications/message; false when the client's level filters it out (or no client). */
  log(level: ClientLogLevel, data: string, logger: string): Promise<boolean>;
  /** Sends notifications/progress; false when the call carried no progressToken. */
  progress(progress: number, total: number | undefined, message: string | undefined): Promise<boolean>;
  /** Sends the request and resolves with the client's answer; the signal cancels it. */
  request(req: ClientRequest, signal: AbortSignal, timeoutMs: number): Promise<ClientAnswer>;
}
