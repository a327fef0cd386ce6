// A SERVER span for every MCP method a server answers (initialize, server/discover, the lists,
// reads, gets, completions, tasks/*), not only tools/call: each SDK keeps its request handlers in
// one table by method, so wrapping that table covers the handlers the SDK registers itself too.
// Only while tracing is on; off, the table is left as the SDK built it (docs/observability.md).
import type { ServerContext } from '@modelcontextprotocol/server';
import { tracer } from '../telemetry/index.js';
import { inRequestSpan, targetOf, type RequestFacts } from './request-span.js';
import { traceOf } from './trace-context.js';

type Handler = (request: { method: string; params?: unknown }, extra: never) => Promise<unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Wraps each handler in `server`'s table, and each one set later (SDK v2 installs server/discover
 * when it connects), in a span whose facts `factsOf` reads from the request. Both SDKs name the
 * table `_requestHandlers` (SDK 1.32, server 2.4); should one rename it, requests go unspanned,
 * never unanswered.
 */
export function traceHandlers<E>(
  server: object,
  factsOf: (request: { method: string; params?: unknown }, extra: E) => RequestFacts,
): void {
  if (tracer() === undefined) return;
  const table = (server as { _requestHandlers?: unknown })._requestHandlers;
  if (!(table instanceof Map)) return;
  const handlers = table as Map<string, Handler>;
  const traced =
    (handler: Handler): Handler =>
    (request, extra) =>
      inRequestSpan(
        () => factsOf(request, extra as E),
        () => handler(request, extra),
      );
  const set = handlers.set.bind(handlers);
  for (const [method, handler] of handlers) set(method, traced(handler));
  handlers.set = (method, handler) => set(method, traced(handler));
}

/** What a 2025-11-25 (SDK v1) handler is given beside the request. */
export interface V1Extra {
  requestId: string | number;
  sessionId?: string | undefined;
  _meta?: unknown;
  requestInfo?: { headers?: Record<string, string | string[] | undefined> } | undefined;
}

/** A 2025-11-25 request's facts: the version from initialize's params or the HTTP header, else this revision. */
export function v1RequestFacts(request: { method: string; params?: unknown }, extra: V1Extra): RequestFacts {
  const headers = extra.requestInfo?.headers;
  const header = headers?.['mcp-protocol-version'];
  const params = isRecord(request.params) ? request.params : {};
  const asked =
    request.method === 'initialize' && typeof params['protocolVersion'] === 'string'
      ? params['protocolVersion']
      : undefined;
  return {
    method: request.method,
    ...targetOf(request.method, request.params),
    requestId: extra.requestId,
    sessionId: extra.sessionId,
    protocolVersion: asked ?? (typeof header === 'string' ? header : '2025-11-25'),
    transport: extra.requestInfo !== undefined ? 'tcp' : 'pipe',
    trace: traceOf(isRecord(extra._meta) ? extra._meta : undefined, headers),
  };
}

/** A 2026-07-28 (SDK v2) request's facts: stateless, so no session id. */
export function v2RequestFacts(request: { method: string; params?: unknown }, ctx: ServerContext): RequestFacts {
  return {
    method: request.method,
    ...targetOf(request.method, request.params),
    requestId: ctx.mcpReq.id,
    protocolVersion: '2026-07-28',
    transport: ctx.http?.req !== undefined ? 'tcp' : 'pipe',
    trace: traceOf(isRecord(ctx.mcpReq._meta) ? ctx.mcpReq._meta : undefined, ctx.http?.req?.headers),
  };
}
