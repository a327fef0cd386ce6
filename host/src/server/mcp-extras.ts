// Resources, resource templates, prompts and completions on a 2025-11-25 session (SDK v1 Server):
// the lists from what modules described, each read/get/complete through the pipeline as the owning
// plugin's operation (module-surfaces.ts). Installed by createMcpServer.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JsonObject } from '../tool/index.js';
import { mcpCallClient, SESSION_SUBSCRIPTIONS } from './call-client.js';
import type { SidecarCore } from './core.js';
import {
  boundedUri,
  completeOperationFor,
  completeParams,
  listPrompts,
  listResources,
  listResourceTemplates,
  NO_COMPLETIONS,
  operationResult,
  promptOperationFor,
  promptParams,
  readOperationFor,
} from './module-surfaces.js';
import { RpcError, toSdkError } from './rpc-error.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** MCP's "resource not found" on 2025-11-25, with the URI in data. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A session's subscriptions are kept for its life, so they are bounded: a client could otherwise
 * subscribe to URIs of megabytes each, without end (docs/decisions.md, "Subscriptions are bounded").
 * Each URI is held to the bound a read has (boundedUri), so a URI one accepts the other does too.
 */
export const SUBSCRIPTION_LIMITS = { perSession: 1024 } as const;

/** Adds `uri` to a session's subscriptions, or refuses it (-32602) past a bound. */
function subscribeWithin(subscribed: Set<string>, uri: string): void {
  boundedUri('resources/subscribe', uri);
  if (!subscribed.has(uri) && subscribed.size >= SUBSCRIPTION_LIMITS.perSession)
    throw new McpError(
      -32602,
      `resources/subscribe: this session holds ${SUBSCRIPTION_LIMITS.perSession} subscriptions, the most it may; unsubscribe from one first`,
    );
  subscribed.add(uri);
}

/** Declared always (the lists may be empty): clients cache capabilities per session. */
export const MODULE_CAPABILITIES = { resources: { subscribe: true }, prompts: {}, completions: {} } as const;

export function serveModuleExtras(core: SidecarCore, server: Server, logLevel: () => LoggingLevel | undefined): void {
  const guard = <T>(fn: () => Promise<T>): Promise<T> =>
    fn().catch((err: unknown) => {
      throw toSdkError(err);
    });
  const run = async (op: string, args: JsonObject, extra: Extra): Promise<Record<string, unknown>> => {
    const callId = randomUUID();
    const unbind = core.approvals.bind(callId, { sessionId: extra.sessionId });
    const client = mcpCallClient({ server, extra, logLevel, logger: core.logger, callId });
    try {
      const agent = server.getClientVersion()?.name;
      const result = await core.calls.run(extra.signal, (signal) =>
        core.pipeline.call(op, args, {
          signal,
          callId,
          client,
          operation: true,
          ...(agent !== undefined ? { agent } : {}),
        }),
      );
      await client.settled();
      return operationResult(result);
    } finally {
      unbind();
    }
  };

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: listResources(core) }) as never);
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    () => ({ resourceTemplates: listResourceTemplates(core) }) as never,
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    guard(async () => {
      const uri = request.params.uri;
      const op = readOperationFor(core, boundedUri('resources/read', uri));
      if (op === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
      return (await run(op, { uri }, extra)) as never;
    }),
  );
  // a module's notify_resource_updated reaches the client only for a URI in here (call-client.ts)
  const subscribed = new Set<string>();
  SESSION_SUBSCRIPTIONS.set(server, subscribed);
  server.setRequestHandler(SubscribeRequestSchema, (request) =>
    guard(async () => {
      subscribeWithin(subscribed, request.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts(core) }) as never);
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
    guard(async () => {
      const { name, args } = promptParams(request.params);
      const op = promptOperationFor(core, name);
      if (op === undefined) throw new RpcError(-32602, `Unknown prompt: ${name}`);
      return (await run(op, args, extra)) as never;
    }),
  );
  server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
    guard(async () => {
      const { ref, args } = completeParams(request.params);
      const op = completeOperationFor(core, ref);
      if (op === undefined) return NO_COMPLETIONS as never;
      return (await run(op, args, extra)) as never;
    }),
  );
}
