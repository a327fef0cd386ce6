// MCP 2026-07-28 (stateless, one request at a time): the SDK v2 Server, built per request, answering
// tools/list from the registry and tools/call through the pipeline. A call that needs a person or
// the client (an ask, a tool's elicitation or sampling) ends in an input-required result; the
// client answers and retries, and the call runs again with the answers (input-rounds.ts). A tool
// that supports tasks runs as one for a request that declares the Tasks extension (task-calls.ts).
// 2025-11-25 sessions keep the v1 server (mcp-server.ts); docs/mcp.md says which serves what.
import { ProtocolError, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { SidecarCore } from './core.js';
import { boundedResponses, type RoundPayload } from './input-rounds.js';
import { runCall } from './modern-call.js';
import { traceHandlers, v2RequestFacts } from './traced-handlers.js';
import { requestLink } from './modern-client.js';
import { RpcError } from './rpc-error.js';
import { callAsTask, declaresTasks, tasksRequired } from './task-calls.js';
import { registerTaskMethods } from './task-methods.js';
import { TASKS_EXTENSION } from './task-store.js';
import { mcpToolView } from './schema-export.js';
import { SERVER_NAME } from './mcp-server.js';
import { MODERN_MODULE_CAPABILITIES, serveModernModuleExtras } from './modern-extras.js';

/** Who is asking: the bearer token's digest over HTTP, or the one stdio client; see RoundPrincipal. */
export interface ModernPrincipal {
  readonly id: string;
  readonly taskOwner?: string;
}

export interface ModernOptions {
  core: SidecarCore;
  principal: ModernPrincipal;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One instance per request (HTTP) or per connection (stdio); it holds no state between requests. */
export function createModernServer(o: ModernOptions): Server {
  const { core, principal } = o;
  const keys = core.roundKeys;
  const server = new Server(
    { name: SERVER_NAME, version: core.version },
    {
      // Prompts, resources and completions: what hyper-mcp modules serve (modern-extras.ts); always
      // declared, so the lists answer (possibly empty) rather than -32601. Tasks: an extension,
      // offered to each request that declares it (docs/mcp.md, "Tasks").
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        ...MODERN_MODULE_CAPABILITIES,
        extensions: { [TASKS_EXTENSION]: {} },
      },
      requestState: { verify: (state: string, ctx: ServerContext) => keys.verify(state, principal, ctx.mcpReq.method) },
    },
  );
  server.setRequestHandler('tools/list', () => {
    // Sorted: a client that caches by content sees the same list for the same tools.
    const tools = core.tools
      .list()
      .map(mcpToolView)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    core.onToolsListed();
    return { tools } as never;
  });
  serveModernModuleExtras(o, server);
  server.setRequestHandler(
    'tools/call',
    (request, ctx) => callTool(o, request.params, ctx).catch(asProtocolError) as never,
  );
  registerTaskMethods(server, core, principal);
  // Last: the span wraps every method above and the SDK's own (server/discover, ping).
  traceHandlers(server, v2RequestFacts);
  return server;
}

/** Our RpcError as the SDK v2's ProtocolError, so its code (not -32603) reaches the client. */
function asProtocolError(err: unknown): never {
  if (err instanceof RpcError) throw new ProtocolError(err.rpcCode, err.message);
  throw err;
}

function toolCallParams(params: unknown): { name: string; args: Record<string, unknown> } {
  if (!isObject(params)) throw new RpcError(-32602, 'tools/call: params must be an object');
  const { name, arguments: args } = params;
  if (typeof name !== 'string') throw new RpcError(-32602, 'tools/call: params.name must be a string');
  if (args !== undefined && !isObject(args))
    throw new RpcError(-32602, 'tools/call: params.arguments must be an object');
  return { name, args: args ?? {} };
}

/**
 * A tools/call: one run with the answers so far (modern-call.ts), or a task when the tool supports
 * tasks and this request declares the extension (task-calls.ts; a tool that requires them refuses
 * a request that does not, -32021).
 */
async function callTool(o: ModernOptions, params: unknown, ctx: ServerContext): Promise<Record<string, unknown>> {
  const { core, principal } = o;
  const { name, args } = toolCallParams(params);
  const tool = core.tools.get(name);
  if (tool === undefined) throw new RpcError(-32602, `Unknown tool: ${name}`);
  const link = requestLink(ctx);
  const execution = tool.definition.execution;
  if (execution !== undefined) {
    if (declaresTasks(link.envelope))
      return callAsTask(
        {
          core,
          principal,
          name,
          args,
          envelope: link.envelope,
          execution,
          ...(link.trace !== undefined ? { trace: link.trace } : {}),
        },
        ctx,
      );
    if (execution.task === 'required') throw tasksRequired(`the tool ${name}`);
  }
  const end = await runCall({
    core,
    principal,
    name,
    args,
    link,
    state: ctx.mcpReq.requestState<RoundPayload>(),
    responses: boundedResponses(ctx.mcpReq.inputResponses),
    signal: ctx.mcpReq.signal,
  });
  return end.kind === 'questions' ? end.round.inputRequired(end.open) : end.result;
}
