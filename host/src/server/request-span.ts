// The SERVER span of one request, after OpenTelemetry's semantic conventions for MCP (status:
// development): named `{mcp.method.name} {target}`, parented on the client's `_meta.traceparent`
// or W3C `traceparent` header (trace-context.ts). Off (no tracer) it only calls `fn`. The call
// sites stay one line each (mcp-server.ts, modern-server.ts, http-api.ts); docs/observability.md.
import { tracer, type SpanAttributes } from '../telemetry/index.js';
import type { TraceContext } from '../pipeline/index.js';
import type { ServerContext } from '@modelcontextprotocol/server';
import { traceOf } from './trace-context.js';

export interface RequestFacts {
  method: string;
  /** The tool of a tools/call. */
  tool?: string | undefined;
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
function isToolError(result: unknown): boolean {
  return isRecord(result) && result['isError'] === true;
}

function attributesOf(f: RequestFacts): SpanAttributes {
  const call = f.method === 'tools/call' && f.tool !== undefined;
  return {
    'mcp.method.name': f.method,
    ...(call ? { 'gen_ai.tool.name': f.tool, 'gen_ai.operation.name': 'execute_tool' } : {}),
    'jsonrpc.request.id': f.requestId !== undefined ? String(f.requestId) : undefined,
    'mcp.session.id': f.sessionId,
    'mcp.protocol.version': f.protocolVersion,
    'network.transport': f.transport,
    ...(f.transport === 'tcp' ? { 'network.protocol.name': 'http' } : {}),
    ...f.extra,
  };
}

export function inRequestSpan<T>(facts: () => RequestFacts, fn: () => Promise<T>): Promise<T> {
  const t = tracer();
  if (t === undefined) return fn();
  const f = facts();
  const name = f.tool !== undefined ? `${f.method} ${f.tool}` : f.method;
  return t.server(name, attributesOf(f), f.trace, async (span) => {
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      span.fail(rpcCodeOf(err), err instanceof Error ? err.message : undefined);
      throw err;
    }
    if (isToolError(result)) span.fail('tool_error');
    return result;
  });
}

/** The facts of a 2025-11-25 (SDK v1) tools/call. */
export function v1CallFacts(
  request: { params?: unknown },
  extra: { requestId: string | number; sessionId?: string | undefined; _meta?: unknown; requestInfo?: { headers?: Record<string, string | string[] | undefined> } | undefined },
): RequestFacts {
  const params = isRecord(request.params) ? request.params : {};
  const headers = extra.requestInfo?.headers;
  const version = headers?.['mcp-protocol-version'];
  return {
    method: 'tools/call',
    tool: typeof params['name'] === 'string' ? params['name'] : undefined,
    requestId: extra.requestId,
    sessionId: extra.sessionId,
    protocolVersion: typeof version === 'string' ? version : '2025-11-25',
    transport: extra.requestInfo !== undefined ? 'tcp' : 'pipe',
    trace: traceOf(isRecord(extra._meta) ? extra._meta : undefined, headers),
  };
}

/** The facts of a 2026-07-28 (SDK v2) tools/call. */
export function v2CallFacts(params: unknown, ctx: ServerContext): RequestFacts {
  const p = isRecord(params) ? params : {};
  return {
    method: 'tools/call',
    tool: typeof p['name'] === 'string' ? p['name'] : undefined,
    requestId: ctx.mcpReq.id,
    protocolVersion: '2026-07-28',
    transport: ctx.http?.req !== undefined ? 'tcp' : 'pipe',
    trace: traceOf(isRecord(ctx.mcpReq._meta) ? ctx.mcpReq._meta : undefined, ctx.http?.req?.headers),
  };
}

/** The facts of a plain HTTP API call (POST /v1/tools/NAME/call): no JSON-RPC, the route instead. */
export function apiCallFacts(tool: string, headers: Record<string, string | string[] | undefined>): RequestFacts {
  return {
    method: 'tools/call',
    tool,
    transport: 'tcp',
    trace: traceOf(undefined, headers),
    extra: { 'http.request.method': 'POST', 'http.route': '/v1/tools/{name}/call' },
  };
}
