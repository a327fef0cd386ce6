// A tools/call over stdio answered without the SDK's request path (docs/decisions.md, "Server CPU
// per call, fifth round"). The SDK would make an AbortController per request, a relay from its
// signal to the call's link, a context with two closures and a chain of five promises, and then
// the call's link would listen on its signal: ~15% of a warm call's CPU. Here the link itself is
// what the SDK's table of running requests holds, so the client's notifications/cancelled and the
// session's close reach the call the same way, with no signal in between. Everything else (the
// pipeline, progress, logs, elicitation, the answer's shape and its errors) is the session's own
// tools/call (mcp-server.ts), shared with the SDK's handler.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AnySchema, SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  ErrorCode,
  McpError,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../errors/index.js';
import { tracer } from '../telemetry/index.js';
import { sessionToolCall } from './mcp-server.js';
import type { CallLink, ClientLinks } from './response-gone.js';
import { cleanError, toSdkError } from './rpc-error.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type RequestId = string | number;

/** What the SDK's table of running requests holds for a direct call; the SDK only calls `abort` on it. */
class SdkCancel {
  cancelled = false;
  readonly #link: CallLink;

  constructor(link: CallLink) {
    this.#link = link;
  }

  /** notifications/cancelled for this request, or the session closing: the client is gone. */
  abort(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#link.clientGone();
  }
}

/**
 * Hands a plain tools/call of `server` (one made by createMcpServer) to the session's own call, and
 * every other request to `fallback` (the SDK's request path). Undefined, and every request goes to
 * `fallback`, while tracing is on (the SDK's handlers carry the request spans, traced-handlers.ts)
 * or if the pinned SDK no longer keeps its running requests where this looks.
 */
export function directToolCalls(
  server: Server,
  transport: { write(message: JSONRPCMessage): void },
  links: ClientLinks,
  fallback: (request: JSONRPCRequest) => void,
): ((request: JSONRPCRequest) => void) | undefined {
  const answer = sessionToolCall(server);
  const table = (server as unknown as { _requestHandlerAbortControllers?: unknown })._requestHandlerAbortControllers;
  if (answer === undefined || !(table instanceof Map) || tracer() !== undefined) return undefined;
  const running = table as Map<RequestId, SdkCancel>;
  const report = (err: unknown) => server.onerror?.(new Error(`Failed to send response: ${messageOf(err)}`));
  return (request) => {
    if (request.method !== 'tools/call' || asksForTask(request)) return fallback(request);
    const id = request.id;
    const link = links.link(id);
    const cancel = new SdkCancel(link);
    running.set(id, cancel);
    // One settle step writes the answer (the transport's write is synchronous) and forgets the
    // request: no promise per step (docs/decisions.md, "Server CPU per call, eighth round").
    const finish = (message: JSONRPCMessage) => {
      // a cancelled request is not answered, as the SDK does
      if (!cancel.cancelled) {
        try {
          transport.write(message);
        } catch (err) {
          report(err);
        }
      }
      link.unlink();
      if (running.get(id) === cancel) running.delete(id);
    };
    answer(request, new DirectExtra(server, request, link, cancel), link).then(
      (result) => finish({ result, jsonrpc: '2.0', id } as JSONRPCMessage),
      (err: unknown) => finish(cleanError(errorResponse(id, toSdkError(err))) as JSONRPCMessage),
    );
  };
}

/** A task-augmented call (`params.task`) goes the SDK's way, which checks the capability first. */
function asksForTask(request: JSONRPCRequest): boolean {
  const params = request.params;
  return params !== undefined && Object.hasOwn(params, 'task');
}

/**
 * The context the SDK would give the handler, for what a call reads of it; notices and requests go
 * out tied to this request. A class, so that `signal` (the link's) is made only if read.
 */
class DirectExtra implements Extra {
  readonly requestId: RequestId;
  declare readonly _meta?: NonNullable<Extra['_meta']>;
  readonly #server: Server;
  readonly #link: CallLink;
  readonly #cancel: SdkCancel;

  constructor(server: Server, request: JSONRPCRequest, link: CallLink, cancel: SdkCancel) {
    this.requestId = request.id;
    this.#server = server;
    this.#link = link;
    this.#cancel = cancel;
    const meta = request.params?._meta;
    if (meta !== undefined) (this as { _meta?: NonNullable<Extra['_meta']> })._meta = meta;
  }

  get signal(): AbortSignal {
    return this.#link.signal;
  }

  // methods, not arrow fields: two closures fewer per call (every caller calls them on the context)
  async sendNotification(notification: Parameters<Extra['sendNotification']>[0]): Promise<void> {
    if (this.#cancel.cancelled) return;
    await this.#server.notification(notification, { relatedRequestId: this.requestId });
  }

  async sendRequest<U extends AnySchema>(
    r: ServerRequest,
    resultSchema: U,
    options?: Parameters<Extra['sendRequest']>[2],
  ): Promise<SchemaOutput<U>> {
    if (this.#cancel.cancelled) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
    return await this.#server.request(r, resultSchema, { ...options, relatedRequestId: this.requestId });
  }
}

/** The SDK's error answer for a handler's error: its integer code (else internal error), message and data. */
function errorResponse(id: RequestId, err: unknown): JSONRPCMessage {
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  const code = Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError;
  const message = typeof e.message === 'string' ? e.message : 'Internal error';
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(e.data !== undefined ? { data: e.data } : {}) },
  } as JSONRPCMessage;
}
