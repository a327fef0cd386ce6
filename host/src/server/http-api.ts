// The plain HTTP API for agents without MCP: list tools in three shapes, call one, answer
// approvals, scrape metrics, check health. Bodies are zod-validated; errors name the field.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { JsonObject, ToolResult } from '../tool/index.js';
import { ClientGone } from '../approval/index.js';
import { ServerClosingError } from './call-tracker.js';
import { onResponseGone } from './response-gone.js';
import { traceOf } from './trace-context.js';
import { apiCallFacts, inRequestSpan, type RequestFacts } from './request-span.js';
import { tracer } from '../telemetry/index.js';
import type { SidecarCore } from './core.js';
import { endedMessage } from './approval-ended.js';
import type { SessionHealth } from './session-table.js';
import { exportTools, isSchemaFormat, SCHEMA_FORMATS } from './schema-export.js';
import { messageOf } from '../errors/index.js';
import { RpcError } from './rpc-error.js';
import {
  completeOperationFor,
  boundedUri,
  completeParams,
  listPrompts,
  listResources,
  listResourceTemplates,
  NO_COMPLETIONS,
  promptOperationFor,
  readOperationFor,
} from './module-surfaces.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { status, message } }, headers);
}

// Only the shape here: the pipeline checks the arguments themselves (size first, then JSON and the
// tool's schema), so zod does not walk a hostile body's every key before that bound applies.
const argumentsObject = z.custom<JsonObject>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
  message: 'expected an object',
});
const callBody = z.strictObject({ arguments: argumentsObject.optional() });
const approvalBody = z.strictObject({ outcome: z.enum(['allowed-once', 'rejected']) });
const promptBody = z.strictObject({ arguments: z.record(z.string(), z.string()).optional() });
const completeBody = z.strictObject({
  ref: z.union([
    z.strictObject({ type: z.literal('ref/prompt'), name: z.string().min(1) }),
    z.strictObject({ type: z.literal('ref/resource'), uri: z.string().min(1) }),
  ]),
  argument: z.strictObject({ name: z.string(), value: z.string() }),
  context: z.strictObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});

/** What each body looks like, shown next to the issue: a caller who guessed the shape learns it. */
const CALL_SHAPE = '{"arguments": {...}}';
const APPROVAL_SHAPE = '{"outcome": "allowed-once" | "rejected"}';
const PROMPT_SHAPE = '{"arguments": {"NAME": "value", ...}}';
const COMPLETE_SHAPE =
  '{"ref": {"type": "ref/prompt", "name": ...} | {"type": "ref/resource", "uri": ...}, "argument": {"name": ..., "value": ...}}';

/** "arguments: expected record, received string; expected {...}": the field, the rule and the shape. */
function zodMessage(err: z.ZodError, shape: string): string {
  return `${err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ')}; expected ${shape}`;
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false; message: string } {
  if (body.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (err) {
    return { ok: false, message: `body is not valid JSON: ${messageOf(err)}` };
  }
}

/** One API request, as its route handler sees it. */
interface ApiRequest {
  core: SidecarCore;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: () => Promise<Buffer>;
  sessions: (() => SessionHealth) | undefined;
  answeredBy: (req: IncomingMessage) => string;
  /** The path's one variable part as sent, still percent-encoded (a tool name, an approval id); '' when it has none. */
  param: string;
}

/**
 * What a route's SERVER span says: the MCP method it stands for (its name, `mcp.method.name`) and
 * its target, or for a route that is no MCP method (approvals) `{method} {route}` after the HTTP
 * conventions. Health and metrics have none; a tool call makes its own (apiPipelineCall).
 */
interface RouteSpan {
  route: string;
  mcp?: string;
  facts?: (r: ApiRequest) => Pick<RequestFacts, 'target' | 'uri'>;
}

/** Method and path of each route; the path's group, when it has one, becomes `param`. */
const ROUTES: readonly {
  method: string;
  path: RegExp;
  handle: (r: ApiRequest) => void | Promise<void>;
  span?: RouteSpan;
}[] = [
  { method: 'GET', path: /^\/healthz$/, handle: health },
  { method: 'GET', path: /^\/metrics$/, handle: metrics },
  { method: 'GET', path: /^\/v1\/tools$/, handle: listTools, span: { route: '/v1/tools', mcp: 'tools/list' } },
  { method: 'POST', path: /^\/v1\/tools\/([^/]+)\/call$/, handle: callTool },
  {
    method: 'GET',
    path: /^\/v1\/resources$/,
    handle: listModuleResources,
    span: { route: '/v1/resources', mcp: 'resources/list' },
  },
  {
    method: 'GET',
    path: /^\/v1\/resources\/read$/,
    handle: readResource,
    span: {
      route: '/v1/resources/read',
      mcp: 'resources/read',
      facts: (r) => ({ uri: r.url.searchParams.get('uri') ?? undefined }),
    },
  },
  {
    method: 'GET',
    path: /^\/v1\/prompts$/,
    handle: listModulePrompts,
    span: { route: '/v1/prompts', mcp: 'prompts/list' },
  },
  {
    method: 'POST',
    path: /^\/v1\/prompts\/([^/]+)\/get$/,
    handle: getPrompt,
    span: { route: '/v1/prompts/{name}/get', mcp: 'prompts/get', facts: (r) => ({ target: decoded(r.param) }) },
  },
  {
    method: 'POST',
    path: /^\/v1\/completions$/,
    handle: complete,
    span: { route: '/v1/completions', mcp: 'completion/complete' },
  },
  { method: 'GET', path: /^\/v1\/approvals$/, handle: listApprovals, span: { route: '/v1/approvals' } },
  { method: 'POST', path: /^\/v1\/approvals\/([^/]+)$/, handle: answerApproval, span: { route: '/v1/approvals/{id}' } },
];

function decoded(param: string): string | undefined {
  try {
    return decodeURIComponent(param);
  } catch {
    return undefined;
  }
}

/** The route's span facts; the answer's status goes on the span, and one of 400 or more is its `error.type`. */
function routeFacts(span: RouteSpan, r: ApiRequest): RequestFacts {
  const method = r.req.method ?? 'GET';
  return {
    method: span.mcp ?? `${method} ${span.route}`,
    notMcp: span.mcp === undefined,
    ...span.facts?.(r),
    transport: 'tcp',
    trace: traceOf(undefined, r.req.headers),
    extra: { 'http.request.method': method, 'http.route': span.route },
  };
}

/** Runs the route's handler, in its span when it has one and tracing is on. */
async function served(
  handle: (r: ApiRequest) => void | Promise<void>,
  span: RouteSpan | undefined,
  r: ApiRequest,
): Promise<void> {
  if (span === undefined) return void (await handle(r));
  await inRequestSpan(
    () => routeFacts(span, r),
    async () => {
      await handle(r);
      tracer()?.annotate({ 'http.response.status_code': r.res.statusCode });
      return r.res.statusCode;
    },
    (status) => (status >= 400 ? String(status) : undefined),
  );
}

/** Returns false when no API route matched (the caller answers 404). */
export async function handleApi(
  core: SidecarCore,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: () => Promise<Buffer>,
  sessions?: () => SessionHealth,
  answeredBy: (req: IncomingMessage) => string = () => 'api',
): Promise<boolean> {
  const method = req.method ?? 'GET';
  for (const route of ROUTES) {
    const match = route.method === method ? route.path.exec(url.pathname) : null;
    if (match === null) continue;
    const param = match[1] ?? '';
    // a malformed escape (`%E0%A4%A`) is the client's mistake, answered before any handler decodes it
    if (decoded(param) === undefined) {
      sendError(res, 400, `${url.pathname}: the path holds a malformed percent-encoding`);
      return true;
    }
    await served(route.handle, route.span, { core, req, res, url, body, sessions, answeredBy, param });
    return true;
  }
  return false;
}

function health({ core, res, sessions }: ApiRequest): void {
  // Saturated (every session slot held by a busy client) is unhealthy: a new client is refused.
  const s = sessions?.();
  const status = core.calls.draining ? 'draining' : s?.saturated === true ? 'saturated' : 'ok';
  sendJson(res, status === 'ok' ? 200 : 503, {
    status,
    tools: core.tools.list().length,
    inFlight: core.calls.inFlight,
    ...(s !== undefined ? { sessions: s } : {}),
  });
}

function metrics({ core, res }: ApiRequest): void {
  const text = core.metrics.render();
  res.writeHead(200, {
    'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function listTools({ core, res, url }: ApiRequest): void {
  const format = url.searchParams.get('format') ?? 'mcp';
  if (!isSchemaFormat(format))
    return sendError(res, 400, `format: must be one of ${SCHEMA_FORMATS.join(', ')} (got "${format}")`);
  sendJson(res, 200, exportTools(core.tools.list(), format));
}

async function callTool({ core, req, res, body, param }: ApiRequest): Promise<void> {
  const name = decodeURIComponent(param);
  if (core.tools.get(name) === undefined) return sendError(res, 404, `unknown tool "${name}"`);
  const parsed = parseJson(await body());
  if (!parsed.ok) return sendError(res, 400, parsed.message);
  const input = callBody.safeParse(parsed.value);
  if (!input.success) return sendError(res, 400, zodMessage(input.error, CALL_SHAPE));
  const call = await apiPipelineCall({ core, req, res }, name, input.data.arguments ?? {}, { span: true });
  if (call === undefined) return;
  const { result, callId } = call;
  if (result.error?.code === 'UNKNOWN_TOOL') sendError(res, 404, `unknown tool "${name}"`);
  else sendJson(res, 200, result, { 'x-toolgate-call-id': callId });
}

function listApprovals({ core, res }: ApiRequest): void {
  if (core.approvalQueue === undefined) return sendError(res, 404, 'no approval queue is configured');
  sendJson(res, 200, { approvals: core.approvalQueue.list() });
}

async function answerApproval({ core, req, res, body, answeredBy, param }: ApiRequest): Promise<void> {
  const queue = core.approvalQueue;
  if (queue === undefined) return sendError(res, 404, 'no approval queue is configured');
  const parsed = parseJson(await body());
  if (!parsed.ok) return sendError(res, 400, parsed.message);
  const input = approvalBody.safeParse(parsed.value);
  if (!input.success) return sendError(res, 400, zodMessage(input.error, APPROVAL_SHAPE));
  const id = decodeURIComponent(param);
  const found = await queue.resolve(id, input.data.outcome, answeredBy(req));
  if (!found) {
    const ended = queue.ended?.(id);
    if (ended !== undefined) return sendError(res, 409, endedMessage(ended));
    return sendError(res, 404, `no pending approval with id "${id}"`);
  }
  sendJson(res, 200, { id, outcome: input.data.outcome });
}

/** The call's trace context from the W3C headers, as call options. */
function traced(headers: IncomingMessage['headers']): { trace?: NonNullable<ReturnType<typeof traceOf>> } {
  const trace = traceOf(undefined, headers);
  return trace !== undefined ? { trace } : {};
}

// ---- what modules serve besides tools (module-surfaces.ts): each read, get and complete is a
// pipeline call of the owning plugin's operation, answered with the MCP result it would carry.

function listModuleResources({ core, res }: ApiRequest): void {
  sendJson(res, 200, { resources: listResources(core), resourceTemplates: listResourceTemplates(core) });
}

function listModulePrompts({ core, res }: ApiRequest): void {
  sendJson(res, 200, { prompts: listPrompts(core) });
}

/** `fn`'s value, or null once a bound it checks (an RpcError) was answered as 400 naming it. */
function bounded<T>(r: ApiRequest, fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    sendError(r.res, 400, err.message);
    return null;
  }
}

async function readResource(r: ApiRequest): Promise<void> {
  const uri = r.url.searchParams.get('uri');
  if (uri === null || uri === '')
    return sendError(r.res, 400, 'uri: the query parameter is required (GET /v1/resources/read?uri=...)');
  const op = bounded(r, () => readOperationFor(r.core, boundedUri('resources/read', uri)));
  if (op === null) return;
  if (op === undefined) return sendError(r.res, 404, `resource not found: ${uri}`);
  await runOperation(r, op, { uri });
}

async function getPrompt(r: ApiRequest): Promise<void> {
  const name = decodeURIComponent(r.param);
  const op = promptOperationFor(r.core, name);
  if (op === undefined) return sendError(r.res, 404, `unknown prompt "${name}"`);
  const parsed = parseJson(await r.body());
  if (!parsed.ok) return sendError(r.res, 400, parsed.message);
  const input = promptBody.safeParse(parsed.value);
  if (!input.success) return sendError(r.res, 400, zodMessage(input.error, PROMPT_SHAPE));
  await runOperation(r, op, {
    name,
    ...(input.data.arguments !== undefined ? { arguments: input.data.arguments } : {}),
  });
}

async function complete(r: ApiRequest): Promise<void> {
  const parsed = parseJson(await r.body());
  if (!parsed.ok) return sendError(r.res, 400, parsed.message);
  const input = completeBody.safeParse(parsed.value);
  if (!input.success) return sendError(r.res, 400, zodMessage(input.error, COMPLETE_SHAPE));
  const params = bounded(r, () => completeParams(input.data));
  if (params === null) return;
  const { ref, args } = params;
  const op = completeOperationFor(r.core, ref);
  if (op === undefined) return sendJson(r.res, 200, NO_COMPLETIONS);
  await runOperation(r, op, args);
}

/** One operation call through the pipeline; a failure (a denial, the module's error) is 422 with the code. */
async function runOperation({ core, req, res }: ApiRequest, op: string, args: JsonObject): Promise<void> {
  const call = await apiPipelineCall({ core, req, res }, op, args, { operation: true });
  if (call === undefined) return;
  const { result, callId } = call;
  const headers = { 'x-toolgate-call-id': callId };
  const value = result.structuredContent;
  if (result.isError || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const code = result.error?.code ?? 'TOOL_ERROR';
    return sendJson(
      res,
      422,
      { error: { status: 422, code, message: result.error?.message ?? 'the module returned no result' } },
      headers,
    );
  }
  sendJson(res, 200, value, headers);
}

/**
 * One pipeline call for an API request: a client that hangs up cancels it (and tears its instance
 * down) and a pending ask is withdrawn (architecture.md §3). undefined: answered 503 (shutting down).
 */
async function apiPipelineCall(
  { core, req, res }: Pick<ApiRequest, 'core' | 'req' | 'res'>,
  name: string,
  args: JsonObject | Record<string, unknown>,
  o: { span?: boolean; operation?: boolean },
): Promise<{ result: ToolResult; callId: string } | undefined> {
  const hangup = new AbortController();
  onResponseGone(res, () => hangup.abort(new ClientGone('its HTTP connection closed before the answer')));
  const callId = randomUUID();
  const unbind = core.approvals.bind(callId, { sessionId: undefined });
  const agent = req.headers['x-toolgate-agent'];
  const run = () =>
    core.calls.run(hangup.signal, (signal) =>
      core.pipeline.call(name, args, {
        signal,
        callId,
        ...(o.operation === true ? { operation: true } : {}),
        ...(typeof agent === 'string' ? { agent } : {}),
        ...traced(req.headers),
      }),
    );
  try {
    return {
      result: await (o.span === true ? inRequestSpan(() => apiCallFacts(name, req.headers), run) : run()),
      callId,
    };
  } catch (err) {
    if (err instanceof ServerClosingError) {
      sendError(res, 503, err.message);
      return undefined;
    }
    throw err;
  } finally {
    unbind();
  }
}
