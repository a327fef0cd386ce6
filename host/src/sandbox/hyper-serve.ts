// What a module sent through hyper-mcp's host functions (worker/hyper-functions.ts), checked with
// zod before anything reaches the client: log lines, progress, elicitations (URL mode only to a
// host the manifest allows) and notifications. Parsed here; client-serve.ts sends them down the
// same path as toolgate:mcp's (docs/authoring.md, "Host functions of the hyper-mcp interface").
import { z } from 'zod';
import { matchHost } from '../host-grammar/index.js';
import {
  CLIENT_LOG_LEVELS,
  CLIENT_NOTIFICATIONS,
  type ClientLogLevel,
  type ClientNotification,
  type JsonObject,
  RESOURCE_URI_CHARS,
} from '../tool/index.js';
import { NOTIFY_METHODS } from './channel.js';

// the worker's list is the tool layer's, in the same order (checked by the compiler both ways)
const SAME_METHODS: readonly ClientNotification[] = NOTIFY_METHODS;
const SAME_ORDER: typeof NOTIFY_METHODS = CLIENT_NOTIFICATIONS;
void SAME_METHODS;
void SAME_ORDER;

const decoder = new TextDecoder();

function json(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
}

/** Why the module's JSON is refused: the first issue, with its path. */
function reason(err: z.ZodError): string {
  const issue = err.issues[0];
  if (issue === undefined) return 'invalid';
  return `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
}

/** How deep a module's JSON may nest: zod and JSON.stringify recurse, and a few thousand levels overflow the stack. */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text in `data` nests arrays and objects deeper than `max` (strings skipped). */
export function nestsDeeper(data: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
const parse = <T>(schema: z.ZodType<T>, data: Uint8Array, what: string): Parsed<T> => {
  if (nestsDeeper(data, MAX_JSON_DEPTH))
    return { ok: false, message: `${what}: nests deeper than ${MAX_JSON_DEPTH} levels` };
  const r = schema.safeParse(json(data));
  return r.success ? { ok: true, value: r.data } : { ok: false, message: `${what}: ${reason(r.error)}` };
};

/**
 * Each schema is built on its first use, not when the sandbox's code loads: only a hyper-mcp module
 * that calls the host function needs it (docs/decisions.md, "First call of a fresh server, warm home").
 */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

const logMessage = once(() =>
  z.object({
    level: z.enum(CLIENT_LOG_LEVELS),
    logger: z.string().max(256).nullish(),
    data: z.json(),
  }),
);

/** notify_logging_message: its level and the line (data as text, or as JSON text). */
export function hyperLog(data: Uint8Array): Parsed<{ level: ClientLogLevel; line: string }> {
  const r = parse(logMessage(), data, 'notify_logging_message');
  if (!r.ok) return r;
  const d = r.value.data;
  return { ok: true, value: { level: r.value.level, line: typeof d === 'string' ? d : JSON.stringify(d) } };
}

// progressToken is the module's guess at the call's token; the call's own token is always used
const progressMessage = once(() =>
  z.object({
    progressToken: z.union([z.string(), z.number()]).nullish(),
    progress: z.number().finite(),
    total: z.number().finite().nullish(),
    message: z.string().nullish(),
  }),
);

/** notify_progress: progress, total and message (the token is the call's own, not the module's). */
export function hyperProgress(
  data: Uint8Array,
): Parsed<{ progress: number; total: number | undefined; message: string | undefined }> {
  const r = parse(progressMessage(), data, 'notify_progress');
  if (!r.ok) return r;
  const { progress, total, message } = r.value;
  return { ok: true, value: { progress, total: total ?? undefined, message: message ?? undefined } };
}

const elicitTimeout = once(() =>
  z
    .object({ timeout: z.number().finite().positive().nullish(), mode: z.string().nullish(), url: z.unknown() })
    .passthrough(),
);

export interface HyperElicitation {
  params: JsonObject;
  /** The module's own timeout in ms, if it gave one. */
  timeoutMs: number | undefined;
  /** True for URL mode whose URL the manifest's allowed_hosts cover. */
  urlChecked: boolean;
}

/**
 * create_elicitation: the params without hyper-mcp's `timeout` (seconds). URL mode sends the
 * client's user to a page: allowed only to an http(s) URL whose host capabilities.allowed_hosts
 * covers, as if the module fetched it (docs/decisions.md, "hyper-mcp host functions").
 */
export function hyperElicitation(data: Uint8Array, allowedHosts: readonly string[]): Parsed<HyperElicitation> {
  const r = parse(elicitTimeout(), data, 'create_elicitation');
  if (!r.ok) return r;
  const { timeout, ...rest } = r.value;
  const params = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null)) as JsonObject;
  const timeoutMs = timeout === undefined || timeout === null ? undefined : Math.ceil(timeout * 1000);
  if (params['mode'] !== 'url') return { ok: true, value: { params, timeoutMs, urlChecked: false } };
  const url = urlOf(params['url']);
  if (url === undefined) return { ok: false, message: 'create_elicitation: url: must be an http or https URL' };
  const scheme = url.protocol === 'https:' ? 'https' : 'http';
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowedHosts.some((pattern) => matchHost(pattern, host, port, scheme))) {
    return {
      ok: false,
      message: `create_elicitation: URL mode to ${url.host} is refused: capabilities.allowed_hosts does not cover it`,
    };
  }
  return { ok: true, value: { params, timeoutMs, urlChecked: true } };
}

function urlOf(raw: unknown): URL | undefined {
  if (typeof raw !== 'string' || raw.length > 2048) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const NOTIFY_PARAMS = once(
  (): Record<ClientNotification, z.ZodType<JsonObject>> => ({
    'notifications/tools/list_changed': z.object({}).transform(() => ({})),
    'notifications/resources/list_changed': z.object({}).transform(() => ({})),
    'notifications/prompts/list_changed': z.object({}).transform(() => ({})),
    'notifications/resources/updated': z
      .object({ uri: z.string().min(1).max(RESOURCE_URI_CHARS) })
      .transform((p) => ({ uri: p.uri })),
    'notifications/elicitation/complete': z
      .object({ elicitationId: z.string().min(1).max(256) })
      .transform((p) => ({ elicitationId: p.elicitationId })),
  }),
);

/** NOTIFY: the notification and its checked params (a list_changed has none). */
export function hyperNotification(data: Uint8Array): Parsed<{ method: ClientNotification; params: JsonObject }> {
  const method = CLIENT_NOTIFICATIONS[data[0] ?? 255];
  if (method === undefined) return { ok: false, message: `unknown notification ${data[0] ?? 'none'}` };
  const body = data.subarray(1);
  if (nestsDeeper(body, MAX_JSON_DEPTH))
    return { ok: false, message: `${method}: nests deeper than ${MAX_JSON_DEPTH} levels` };
  const schema = NOTIFY_PARAMS()[method];
  const r = body.length === 0 ? schema.safeParse({}) : schema.safeParse(json(body));
  return r.success
    ? { ok: true, value: { method, params: r.data } }
    : { ok: false, message: `${method}: ${reason(r.error)}` };
}
