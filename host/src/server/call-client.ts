// One tools/call's link to the client that made it, for the tool's toolgate:mcp functions: log
// lines at the level the client set, progress on the call's own token, and elicitation, sampling
// and roots requests sent on the same request's stream (so over HTTP they reach the POST that asked).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateMessageRequestParamsSchema,
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestURLParamsSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Logger } from 'pino';
import {
  CLIENT_LOG_LEVELS,
  type CallClient,
  type ClientAnswer,
  type ClientLogLevel,
  type ClientRequest,
  type JsonObject,
} from '../tool/index.js';
import { messageOf } from '../errors/index.js';
import { spellHidden, spellHiddenDeep } from '../terminal/index.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Without logging/setLevel the client gets info and above (debug is noise it did not ask for). */
export const DEFAULT_CLIENT_LOG_LEVEL: ClientLogLevel = 'info';

export const severity = (level: ClientLogLevel | LoggingLevel): number => CLIENT_LOG_LEVELS.indexOf(level);

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'params';
  return `${where}: ${issue.message}`;
}

/** Every `{type: "text", text}` block in sampling messages, at any depth, with its text spelled out. */
function spelledTextBlocks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(spelledTextBlocks);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = spelledTextBlocks(v);
  if (out['type'] === 'text' && typeof out['text'] === 'string') out['text'] = spellHidden(out['text']);
  return out;
}

/**
 * What a person will read of a sampling request, cleaned: text shown by the client has its
 * controls, escapes, bidi and invisible characters spelled out, and the request may not pull in
 * the context of other servers (or this one): includeContext is always "none"
 * (docs/architecture.md, "Text shown to people"; docs/mcp.md).
 */
function cleanSampling(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params, messages: spelledTextBlocks(params['messages']) };
  if (typeof params['systemPrompt'] === 'string') out['systemPrompt'] = spellHidden(params['systemPrompt']);
  if (params['includeContext'] !== undefined) out['includeContext'] = 'none';
  return out;
}

/** What an inputKey may be: it names a question of a 2026-07-28 input round. */
const INPUT_KEY_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The key a tool gave its request (params.inputKey), naming the question in a 2026-07-28 input
 * round; undefined when there is none or it is not 1-64 of [A-Za-z0-9_.-]. The 2025-11-25 path
 * ignores it (checkedParams strips it before anything reaches the client).
 */
export function inputKeyOf(req: ClientRequest): string | undefined {
  const key = (req.params as Record<string, unknown>)['inputKey'];
  return typeof key === 'string' && INPUT_KEY_RE.test(key) ? key : undefined;
}

/** The MCP method each kind of request is sent as. */
export const CLIENT_REQUEST_METHOD = {
  elicitation: 'elicitation/create',
  sampling: 'sampling/createMessage',
  roots: 'roots/list',
} as const satisfies Record<ClientRequest['kind'], string>;

/** Whether the client declared the capability a kind of request needs (URL-mode elicitation: elicitation.url). */
export function clientCanAnswer(
  caps: Readonly<Record<string, unknown>> | undefined,
  kind: ClientRequest['kind'],
  req?: ClientRequest,
): boolean {
  if (caps?.[kind] === undefined) return false;
  if (req?.urlChecked !== true || req.params['mode'] !== 'url') return true;
  const elicitation = caps['elicitation'];
  return (
    typeof elicitation === 'object' &&
    elicitation !== null &&
    (elicitation as Record<string, unknown>)['url'] !== undefined
  );
}

/**
 * The URIs each 2025-11-25 session's client subscribed to (resources/subscribe, mcp-extras.ts): a
 * module's notifications/resources/updated goes out only for one of them, as MCP says.
 */
export const SESSION_SUBSCRIPTIONS = new WeakMap<Server, Set<string>>();

/**
 * The params a tool may send. A top-level string inputKey (the question's name in a 2026-07-28
 * input round, see inputKeyOf) is never part of them. roots/list takes no params of its own. Elicitation is form mode only (a URL-mode request would let an
 * untrusted tool send the user to a page of its choosing), but for a hyper-mcp module's URL the
 * sandbox checked against capabilities.allowed_hosts (req.urlChecked). _meta and task are the host's, not the tool's.
 * Every string of an elicitation (message, field titles, descriptions, choices) is shown to a
 * person, so each has its hidden characters spelled out.
 */
export function checkedParams(
  req: ClientRequest,
): { ok: true; params: Record<string, unknown> } | { ok: false; message: string } {
  const { _meta: _m, task: _t, ...all } = req.params as Record<string, unknown>;
  const { inputKey, ...stripped } = all;
  const rest = typeof inputKey === 'string' ? stripped : all;
  if (req.kind === 'roots') {
    const extra = Object.keys(rest);
    return extra.length === 0
      ? { ok: true, params: {} }
      : {
          ok: false,
          message: `roots params: only an inputKey string is allowed (got ${extra.map((k) => JSON.stringify(k)).join(', ')})`,
        };
  }
  if (req.kind === 'elicitation' && req.urlChecked === true && rest['mode'] === 'url') {
    // a hyper-mcp module's URL mode, its URL already checked against the manifest's allowed_hosts
    const parsed = ElicitRequestURLParamsSchema.safeParse(rest);
    return parsed.success
      ? { ok: true, params: spellHiddenDeep(parsed.data) as Record<string, unknown> }
      : { ok: false, message: `elicitation params.${firstIssue(parsed.error)}` };
  }
  if (req.kind === 'elicitation') {
    if (rest['mode'] !== undefined && rest['mode'] !== 'form')
      return {
        ok: false,
        message: `elicitation params.mode: only "form" is allowed for tools (got ${JSON.stringify(rest['mode'])})`,
      };
    const parsed = ElicitRequestFormParamsSchema.safeParse(rest);
    return parsed.success
      ? { ok: true, params: spellHiddenDeep(parsed.data) as Record<string, unknown> }
      : { ok: false, message: `elicitation params.${firstIssue(parsed.error)}` };
  }
  const parsed = CreateMessageRequestParamsSchema.safeParse(rest);
  return parsed.success
    ? { ok: true, params: cleanSampling(parsed.data) }
    : { ok: false, message: `sampling params.${firstIssue(parsed.error)}` };
}

export interface CallClientOptions {
  server: Server;
  extra: Extra;
  /** The level the session's client set with logging/setLevel (undefined: not set). */
  logLevel(): LoggingLevel | undefined;
  logger: Logger;
  callId: string;
}

/**
 * The SDK's clients handle a notification a microtask later but a response at once, and drop a
 * progress notification whose request has already been answered: when a tool's last progress and
 * its result arrive in one read, that progress is lost. Answering at least this long after the
 * last progress keeps them in separate reads in practice.
 */
export const PROGRESS_SETTLE_MS = 15;

export interface SessionCallClient extends CallClient {
  /** Resolves once the answer may follow the tool's last progress notification; undefined if it may now. */
  settled(): Promise<void> | undefined;
}

/**
 * The URL-mode elicitations one call sent, by elicitationId: its module may announce the
 * completion of those only, not of another call's or another plugin's (docs/decisions.md,
 * "hyper-mcp host functions").
 */
export function urlElicitationsOfCall(): {
  sent(req: ClientRequest): void;
  mayClose(method: string, params: Record<string, unknown>): boolean;
} {
  const ids = new Set<string>();
  return {
    sent(req) {
      const id = req.params['elicitationId'];
      if (req.urlChecked === true && typeof id === 'string') ids.add(id);
    },
    mayClose: (method, params) =>
      method !== 'notifications/elicitation/complete' || ids.has(String(params['elicitationId'])),
  };
}

export function mcpCallClient(o: CallClientOptions): SessionCallClient {
  const token = o.extra._meta?.progressToken;
  const urlElicitations = urlElicitationsOfCall();
  let lastProgress = Number.NEGATIVE_INFINITY;
  let lastProgressAt = Number.NEGATIVE_INFINITY;
  const notify = async (notification: ServerNotification): Promise<boolean> => {
    try {
      await o.extra.sendNotification(notification);
      return true;
    } catch (err) {
      o.logger.debug({ err, callId: o.callId }, `${notification.method} not delivered`);
      return false;
    }
  };
  return {
    settled() {
      if (lastProgressAt === Number.NEGATIVE_INFINITY) return undefined;
      const wait = lastProgressAt + PROGRESS_SETTLE_MS - performance.now();
      return wait > 0 ? new Promise((r) => setTimeout(r, wait)) : undefined;
    },
    async log(level, data, logger) {
      if (severity(level) < severity(o.logLevel() ?? DEFAULT_CLIENT_LOG_LEVEL)) return false;
      // Controls are already gone (cleanLogLine); bidi and invisible characters are spelled out.
      return notify({ method: 'notifications/message', params: { level, logger, data: spellHidden(data) } });
    },
    async progress(progress, total, message) {
      // MCP: progress must increase with each notification; a value that does not is not sent
      if (token === undefined || !(progress > lastProgress)) return false;
      lastProgress = progress;
      lastProgressAt = performance.now();
      return notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message !== undefined && message !== '' ? { message: spellHidden(message) } : {}),
        },
      });
    },
    request: (req, signal, timeoutMs) => {
      urlElicitations.sent(req);
      return sessionRequest(o, req, signal, timeoutMs);
    },
    async notify(method, params) {
      if (
        method === 'notifications/resources/updated' &&
        SESSION_SUBSCRIPTIONS.get(o.server)?.has(String(params['uri'])) !== true
      )
        return false;
      if (!urlElicitations.mayClose(method, params)) return false;
      return notify({ method, params } as ServerNotification);
    },
  };
}

/** A tool's elicitation, sampling or roots request, sent on the session's request that made the call. */
async function sessionRequest(
  o: CallClientOptions,
  req: ClientRequest,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ClientAnswer> {
  if (!clientCanAnswer(o.server.getClientCapabilities(), req.kind, req)) {
    const what = req.urlChecked === true ? 'elicitation.url' : req.kind;
    return { ok: false, code: 'UNAVAILABLE', message: `the client did not declare the ${what} capability` };
  }
  const checked = checkedParams(req);
  if (!checked.ok) return { ok: false, code: 'INVALID_REQUEST', message: checked.message };
  if (!(timeoutMs > 0))
    return { ok: false, code: 'FAILED', message: `no time is left before the call's deadline for ${req.kind}` };
  try {
    const options = { signal, timeout: timeoutMs };
    const result =
      req.kind === 'elicitation'
        ? await o.extra.sendRequest(
            { method: 'elicitation/create', params: checked.params as never },
            ElicitResultSchema,
            options,
          )
        : req.kind === 'roots'
          ? await o.extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema, options)
          : await o.extra.sendRequest(
              { method: 'sampling/createMessage', params: checked.params as never },
              checked.params['tools'] !== undefined ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema,
              options,
            );
    return { ok: true, result: JSON.parse(JSON.stringify(result)) as JsonObject };
  } catch (err) {
    return { ok: false, code: 'FAILED', message: `${req.kind} request failed: ${messageOf(err)}` };
  }
}
