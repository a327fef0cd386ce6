// The SERVER span of one request, after OpenTelemetry's semantic conventions for MCP (status:
// development): named `{mcp.method.name} {target}`, parented on the client's `_meta.traceparent`
// or W3C `traceparent` header (trace-context.ts). Off (no tracer) it only calls `fn`. The call
// sites stay one line each (traced-handlers.ts wraps every MCP method of both SDKs, http-api.ts
// each working route); docs/observability.md.
import { tracer, type SpanAttributes } from '../telemetry/index.js';
import type { TraceContext } from '../pipeline/index.js';
import { traceOf } from './trace-context.js';

export interface RequestFacts {
  /** The MCP method (`mcp.method.name`), or for an HTTP API route that is none, `{method} {route}` (see notMcp). */
  method: string;
  /** The span name's low-cardinality target: the tool of a tools/call, the prompt of a prompts/get. */
  target?: string | undefined;
  /** The resource of a resources/read or (un)subscribe: an attribute, never in the name (cardinality). */
  uri?: string | undefined;
  /** Not an MCP method (an HTTP API route such as an approval answer): no `mcp.method.name`. */
  notMcp?: boolean;
  requestId?: string | number | undefined;
  sessionId?: string | undefined;
  protocolVersion?: string | undefined;
  /** pipe for stdio, tcp for HTTP. */
  transport: 'pipe' | 'tcp';
  trace?: TraceContext | undefined;
  /** More attributes (the plain HTTP API's route). */
  extra?: SpanAttributes;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON-RPC error's code, for `error.type` of a request that failed as a protocol error. */
function rpcCodeOf(err: unknown): string {
  if (isRecord(err)) {
    if (typeof err['rpcCode'] === 'number') return String(err['rpcCode']);
    if (typeof err['code'] === 'number' || typeof err['code'] === 'string') return String(err['code']);
  }
  return err instanceof Error ? err.name : '_OTHER';
}

/** `tool_error` when the answer is a tool result with isError (semantic conventions for MCP). */
function toolErrorOf(result: unknown): string | undefined {
  return isRecord(result) && result['isError'] === true ? 'tool_error' : undefined;
}

/** The target's own attribute: `gen_ai.tool.name` (with the operation) or `gen_ai.prompt.name`. */
function targetAttributes(f: RequestFacts): SpanAttributes {
  if (f.target === undefined) return {};
  if (f.method === 'tools/call') return { 'gen_ai.tool.name': f.target, 'gen_ai.operation.name': 'execute_tool' };
  if (f.method === 'prompts/get') return { 'gen_ai.prompt.name': f.target };
  return {};
}

function attributesOf(f: RequestFacts): SpanAttributes {
  return {
    'mcp.method.name': f.notMcp === true ? undefined : f.method,
    ...targetAttributes(f),
    'mcp.resource.uri': f.uri,
    'jsonrpc.request.id': f.requestId !== undefined ? String(f.requestId) : undefined,
    'mcp.session.id': f.sessionId,
    'mcp.protocol.version': f.protocolVersion,
    'network.transport': f.transport,
    ...(f.transport === 'tcp' ? { 'network.protocol.name': 'http' } : {}),
    ...f.extra,
  };
}

/**
 * Runs `fn` in the request's SERVER span. `failure` says from its result whether it failed without
 * throwing (default: a tool result with isError is `tool_error`).
 */
export function inRequestSpan<T>(
  facts: () => RequestFacts,
  fn: () => Promise<T>,
  failure: (result: T) => string | undefined = toolErrorOf,
): Promise<T> {
  const t = tracer();
  if (t === undefined) return fn();
  const f = facts();
  const name = f.target !== undefined ? `${f.method} ${f.target}` : f.method;
  return t.server(name, attributesOf(f), f.trace, async (span) => {
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      span.fail(rpcCodeOf(err), err instanceof Error ? err.message : undefined);
      throw err;
    }
    const failed = failure(result);
    if (failed !== undefined) span.fail(failed);
    return result;
  });
}

/** What names a request's target and resource in its params (tools/call, prompts/get, resources/read). */
export function targetOf(method: string, params: unknown): Pick<RequestFacts, 'target' | 'uri'> {
  const p = isRecord(params) ? params : {};
  const name = typeof p['name'] === 'string' ? p['name'] : undefined;
  const uri = typeof p['uri'] === 'string' ? p['uri'] : undefined;
  if (method === 'tools/call' || method === 'prompts/get') return { target: name };
  return method.startsWith('resources/') ? { uri } : {};
}

/** The facts of a plain HTTP API call (POST /v1/tools/NAME/call): no JSON-RPC, the route instead. */
export function apiCallFacts(tool: string, headers: Record<string, string | string[] | undefined>): RequestFacts {
  return {
    method: 'tools/call',
    target: tool,
    transport: 'tcp',
    trace: traceOf(undefined, headers),
    extra: { 'http.request.method': 'POST', 'http.route': '/v1/tools/{name}/call' },
  };
}
