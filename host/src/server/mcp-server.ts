// One MCP session: the SDK's low-level Server with raw JSON Schema, answering tools/list from the
// registry and tools/call through the pipeline. Over HTTP there is one of these per session.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitResultSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ApprovalOutcome, ApprovalRequest, CallOptions } from '../pipeline/index.js';
import { askKeepAlive } from './approval-wait.js';
import { ServerClosingError } from './call-tracker.js';
import { mcpCallClient } from './call-client.js';
import { approvalForm, outcomeOf } from './elicit.js';
import { toCallToolResult } from './mcp-result.js';
import { traceOf } from './trace-context.js';
import { traceHandlers, v1RequestFacts, type V1Extra } from './traced-handlers.js';
import { ClientLinks, type CallLink } from './response-gone.js';
import { RpcError, toSdkError } from './rpc-error.js';
import { AjvJsonSchemaValidator } from './sdk-ajv.js';
import { mcpToolView } from './schema-export.js';
import { MODULE_CAPABILITIES, serveModuleExtras } from './mcp-extras.js';
import type { SidecarCore } from './core.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const SERVER_NAME = 'toolgate';

/**
 * Matches any tools/call, so that a malformed one reaches toolCallParams, which answers
 * InvalidParams naming the field (the SDK's own check answered with a multi-line zod dump).
 */
const AnyToolCall = z.looseObject({ method: z.literal('tools/call'), params: z.unknown() });
type ToolCallHandler = (request: z.infer<typeof AnyToolCall>, extra: Extra) => Promise<Record<string, unknown>>;

/** Server.setRequestHandler wraps tools/call in that check; the base class's registers it as is. */
function setToolCallHandler(server: Server, handler: ToolCallHandler): void {
  const base = Protocol.prototype.setRequestHandler as (
    this: Server,
    schema: typeof AnyToolCall,
    h: ToolCallHandler,
  ) => void;
  base.call(server, AnyToolCall, handler);
}

/**
 * One tools/call of a session, given its link to the client; its errors are ours, which `toSdkError`
 * turns into the SDK's. The SDK's handler and the stdio transport's direct path (direct-call.ts)
 * both answer through it.
 */
export type SessionToolCall = (
  raw: { params?: unknown },
  extra: Extra,
  link: CallLink,
) => Promise<Record<string, unknown>>;
const SESSION_TOOL_CALLS = new WeakMap<Server, SessionToolCall>();

/** How `server` (made by createMcpServer) answers a tools/call, for a transport that skips the SDK's request path. */
export function sessionToolCall(server: Server): SessionToolCall | undefined {
  return SESSION_TOOL_CALLS.get(server);
}

const UNKNOWN_TOOL = (name: string) => new RpcError(-32602, `Unknown tool: ${name}`);

/** `links`: the session's calls by request id, for the transport that learns a client is gone. */
export function createMcpServer(core: SidecarCore, links: ClientLinks = new ClientLinks()): Server {
  const server = new Server(
    { name: SERVER_NAME, version: core.version },
    // logging: module logs reach the client as notifications/message, at the level it set;
    // resources, prompts, completions: what hyper-mcp modules serve (possibly nothing: empty lists).
    {
      capabilities: { tools: { listChanged: true }, logging: {}, ...MODULE_CAPABILITIES },
      jsonSchemaValidator: new AjvJsonSchemaValidator(),
    },
  );

  skipRequestIdZero(server);

  // One Server per session, so the level the client set is this closure's (tools' logs honour it).
  let logLevel: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, () => {
    const tools = core.tools.list().map(mcpToolView);
    core.onToolsListed();
    return { tools };
  });

  const answer: SessionToolCall = (raw, extra, link) => callTool(core, server, raw, extra, () => logLevel, link);
  SESSION_TOOL_CALLS.set(server, answer);
  setToolCallHandler(server, async (raw, extra) => {
    const link = links.link(extra.requestId, extra.signal);
    try {
      return await answer(raw, extra, link);
    } catch (err) {
      throw toSdkError(err);
    } finally {
      link.unlink();
    }
  });
  // resources, prompts and completions that modules serve (mcp-extras.ts)
  serveModuleExtras(core, server, () => logLevel);
  // Last: the span wraps every method above and the SDK's own (initialize, ping).
  traceHandlers<V1Extra>(server, v1RequestFacts);
  return server;
}

/** One tools/call through the pipeline, with progress and the call's client (elicitation, logs). */
async function callTool(
  core: SidecarCore,
  server: Server,
  raw: { params?: unknown },
  extra: Extra,
  logLevel: () => LoggingLevel | undefined,
  link: CallLink,
): Promise<Record<string, unknown>> {
  const { name, args } = toolCallParams(raw);
  // An unknown tool is a protocol mistake (the client did not use tools/list), not a tool failure.
  if (core.tools.get(name) === undefined) throw UNKNOWN_TOOL(name);
  const callId = randomUUID();
  const route = new AskRoute(core, server, extra, callId);
  const progressToken = extra._meta?.progressToken;
  // A tool that reports its own progress owns the token: ours would interleave with its values.
  const ownProgress =
    progressToken !== undefined && core.tools.get(name)?.definition.capabilities?.mcp?.includes('progress') !== true;
  const progress = progressSender(core, extra, callId);
  const client = mcpCallClient({ server, extra, logLevel, logger: core.logger, callId });
  try {
    // Without a progress token there is nothing to send: skip the awaits (two per call).
    if (ownProgress) await progress(0, `calling ${name}`);
    const agent = server.getClientVersion()?.name;
    const trace = traceOf(extra._meta as Record<string, unknown> | undefined, extra.requestInfo?.headers);
    const keepAlive = ownProgress ? askKeepAlive(progress, core.askProgressMs) : undefined;
    const onApprovalWait = approvalWait(link, keepAlive, route);
    // the link's signal is this call's own: the tracker aborts it on shutdown, making none of its
    // own; the pipeline gets its owner, so the AbortSignal is made only if something reads it
    const options: CallOptions = { cancel: link.cancel, callId, client, onApprovalWait };
    if (agent !== undefined) options.agent = agent;
    if (trace !== undefined) options.trace = trace;
    const result = await core.calls.run(link.cancel, () => core.pipeline.call(name, args, options), link.abort);
    // Unregistered between the check above and dispatch: still the client's mistake.
    if (result.error?.code === 'UNKNOWN_TOOL') throw UNKNOWN_TOOL(name);
    if (ownProgress) await progress(1, result.isError ? `${name} failed` : `${name} done`);
    else {
      // nothing to wait for after most calls: no await then (a microtask and a promise fewer)
      const settling = client.settled();
      if (settling !== undefined) await settling;
    }
    return toCallToolResult(result, callId);
  } catch (err) {
    if (err instanceof ServerClosingError) throw new RpcError(-32000, err.message);
    throw err;
  } finally {
    route.unbind();
  }
}

/**
 * The call's approval route (its session, and its client's elicitation when declared), bound when
 * a person is first asked rather than on every call: the pipeline tells onApprovalWait before it
 * asks the approval service, the only reader of routes, and most calls never ask (docs/decisions.md,
 * "Server CPU per call, ninth round"). Unbound when the call ends.
 */
class AskRoute {
  #unbind: (() => void) | undefined;

  constructor(
    private readonly core: SidecarCore,
    private readonly server: Server,
    private readonly extra: Extra,
    private readonly callId: string,
  ) {}

  bind(): void {
    if (this.#unbind !== undefined) return;
    const { core, extra } = this;
    this.#unbind = core.approvals.bind(this.callId, {
      sessionId: extra.sessionId,
      ...(this.server.getClientCapabilities()?.elicitation !== undefined
        ? { elicit: (req, signal) => elicit(core, extra, req, signal) }
        : {}),
    });
  }

  unbind(): void {
    this.#unbind?.();
  }
}

/**
 * While the call waits for a person: the link knows (stdin closing withdraws the ask) and the
 * client hears progress. A tool that reports its own progress owns the token, and MCP wants its
 * values to increase on a scale only the tool knows, so it gets no keep-alive (docs/decisions.md).
 */
function approvalWait(link: CallLink, keepAlive: (() => () => void) | undefined, route: AskRoute): () => () => void {
  return () => {
    route.bind();
    const asked = link.waiting();
    const alive = keepAlive?.();
    return () => {
      alive?.();
      asked();
    };
  };
}

/** Sends notifications/progress for the request's token; one the client cannot take is only logged. */
function progressSender(
  core: SidecarCore,
  extra: Extra,
  callId: string,
): (value: number, message: string) => Promise<void> {
  const progressToken = extra._meta?.progressToken;
  return async (value, message) => {
    try {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: progressToken as string | number, progress: value, total: 1, message },
      });
    } catch (err) {
      core.logger.debug({ err, callId }, 'progress notification not delivered');
    }
  };
}

/**
 * The SDK's clients ignore notifications/cancelled for request id 0 (a falsy check in
 * Protocol._oncancel, SDK 1.32), and a session's first server-to-client request gets id 0: a tool's
 * first elicitation or sampling request could then never be cancelled at the client when its call
 * ends. Starting the counter at 1 avoids that; if the SDK renames the field this does nothing.
 */
function skipRequestIdZero(server: Server): void {
  const counter = server as unknown as { _requestMessageId?: unknown };
  if (counter._requestMessageId === 0) counter._requestMessageId = 1;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toolCallParams(raw: { params?: unknown }): { name: string; args: unknown } {
  if (!isObject(raw.params)) throw new RpcError(-32602, 'tools/call: params must be an object');
  const { name, arguments: args } = raw.params;
  if (typeof name !== 'string') throw new RpcError(-32602, 'tools/call: params.name must be a string');
  if (args !== undefined && !isObject(args))
    throw new RpcError(-32602, 'tools/call: params.arguments must be an object');
  return { name, args: args ?? {} };
}

/** Asks the client's user over the same session, tied to the tools/call request that asked. */
async function elicit(
  core: SidecarCore,
  extra: Extra,
  req: ApprovalRequest,
  signal: AbortSignal,
): Promise<ApprovalOutcome> {
  const sensitive = core.tools.get(req.exec.name)?.definition.sensitiveArguments === true;
  const form = approvalForm(req, sensitive);
  try {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: form }, ElicitResultSchema, {
      signal,
      timeout: core.approvalTimeoutMs,
    });
    return outcomeOf(answer.action);
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    core.logger.warn({ err, callId: req.exec.callId }, 'elicitation failed; the call is not approved');
    return 'unavailable';
  }
}
