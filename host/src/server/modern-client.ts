// One 2026-07-28 tools/call's link to its client, for the tool's toolgate:mcp functions: log lines
// and progress go out on the request's own response, at the level its envelope names; elicitation,
// sampling and roots become questions of the call's input round (input-rounds.ts), checked exactly
// as a 2025-11-25 session's are (call-client.ts). A task's run has no response to write to: its log
// lines and progress are dropped (tasks.ts).
import type { ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { ClientAnswer, ClientLogLevel } from '../tool/index.js';
import { spellHidden } from '../terminal/index.js';
import {
  checkedParams,
  inputKeyOf,
  clientCanAnswer,
  CLIENT_REQUEST_METHOD,
  PROGRESS_SETTLE_MS,
  severity,
  urlElicitationsOfCall,
  type SessionCallClient,
} from './call-client.js';
import type { InputRound } from './input-rounds.js';
import type { TraceContext } from '../pipeline/index.js';
import { traceOf } from './trace-context.js';
import { envelopeOf, type ClientEnvelope } from './modern-envelope.js';

/** Where a run's notifications go: the request's own response, or nowhere (a task). */
export interface ModernLink {
  envelope: ClientEnvelope;
  /** The W3C trace context the request carried (trace-context.ts). */
  trace?: TraceContext;
  progressToken?: string | number;
  notify?: (method: string, params: Record<string, unknown>) => Promise<void>;
}

/** The link of a request being answered now. */
export function requestLink(ctx: ServerContext): ModernLink {
  const token = ctx.mcpReq._meta?.progressToken;
  const trace = traceOf(ctx.mcpReq._meta as Record<string, unknown> | undefined, ctx.http?.req?.headers);
  return {
    envelope: envelopeOf(ctx),
    ...(trace !== undefined ? { trace } : {}),
    ...(token !== undefined ? { progressToken: token } : {}),
    notify: (method, params) => ctx.mcpReq.notify({ method, params } as never),
  };
}

export interface ModernClientOptions {
  link: ModernLink;
  round: InputRound;
  logger: Logger;
  callId: string;
}

export function modernCallClient(o: ModernClientOptions): SessionCallClient {
  const { envelope, progressToken: token, notify: send } = o.link;
  // 2026-07-28: no log lines for a request that did not name a level.
  const level: ClientLogLevel | undefined = envelope.logLevel;
  const urlElicitations = urlElicitationsOfCall();
  let lastProgress = Number.NEGATIVE_INFINITY;
  let lastProgressAt = Number.NEGATIVE_INFINITY;
  const notify = async (method: string, params: Record<string, unknown>): Promise<boolean> => {
    if (send === undefined) return false;
    try {
      await send(method, params);
      return true;
    } catch (err) {
      o.logger.debug({ err, callId: o.callId }, `${method} not delivered`);
      return false;
    }
  };
  return {
    settled() {
      const wait = lastProgressAt + PROGRESS_SETTLE_MS - performance.now();
      return wait > 0 ? new Promise((r) => setTimeout(r, wait)) : Promise.resolve();
    },
    async log(lineLevel, data, logger) {
      if (level === undefined || severity(lineLevel) < severity(level)) return false;
      return notify('notifications/message', { level: lineLevel, logger, data: spellHidden(data) });
    },
    async progress(progress, total, message) {
      if (token === undefined || !(progress > lastProgress)) return false;
      lastProgress = progress;
      lastProgressAt = performance.now();
      return notify('notifications/progress', {
        progressToken: token,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined && message !== '' ? { message: spellHidden(message) } : {}),
      });
    },
    async request(req): Promise<ClientAnswer> {
      urlElicitations.sent(req);
      const caps = envelope.clientCapabilities;
      if (!clientCanAnswer(caps, req.kind, req)) return o.round.missingCapability(req.kind);
      const checked = checkedParams(req);
      if (!checked.ok) return { ok: false, code: 'INVALID_REQUEST', message: checked.message };
      const method = CLIENT_REQUEST_METHOD[req.kind];
      const params = req.kind === 'elicitation' ? { mode: 'form', ...checked.params } : checked.params;
      return o.round.request(method, params, inputKeyOf(req));
    },
    // 2026-07-28 has no resource subscriptions on a request's response: resources/updated is not sent
    async notify(method, params) {
      if (method === 'notifications/resources/updated' || !urlElicitations.mayClose(method, params)) return false;
      return notify(method, params);
    },
  };
}
