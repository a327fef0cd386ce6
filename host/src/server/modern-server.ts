// MCP 2026-07-28 (stateless, one request at a time): the SDK v2 Server, built per request, answering
// tools/list from the registry and tools/call through the pipeline. A call that needs a person or
// the client (an ask, a tool's elicitation or sampling) ends in an input-required result; the
// client answers and retries, and the call runs again with the answers (input-rounds.ts).
// 2025-11-25 sessions keep the v1 server (mcp-server.ts); docs/mcp.md says which serves what.
import { randomUUID } from 'node:crypto';
import { ProtocolError, Server, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { ServerClosingError } from './call-tracker.js';
import type { SidecarCore } from './core.js';
import { approvalForm } from './elicit.js';
import { InputRound, type RoundPayload } from './input-rounds.js';
import { toCallToolResult } from './mcp-result.js';
import { traceOf } from './trace-context.js';
import { modernCallClient } from './modern-client.js';
import { envelopeOf } from './modern-envelope.js';
import { RpcError } from './rpc-error.js';
import { mcpToolView } from './schema-export.js';
import { SERVER_NAME } from './mcp-server.js';
import { MODERN_MODULE_CAPABILITIES, serveModernModuleExtras } from './modern-extras.js';

/** Who is asking: the bearer token's digest over HTTP, or the one stdio client. */
export interface ModernPrincipal {
  readonly id: string;
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
      // declared, so the lists answer (possibly empty) rather than -32601.
      capabilities: { tools: { listChanged: true }, logging: {}, ...MODERN_MODULE_CAPABILITIES },
      requestState: { verify: (state: string, ctx: ServerContext) => keys.verify(state, principal, ctx.mcpReq.method) },
    },
  );
  server.setRequestHandler('tools/list', () => {
    // Sorted: a client that caches by content sees the same list for the same tools.
    const tools = core.tools.list().map(mcpToolView).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    core.onToolsListed();
    return { tools } as never;
  });
  serveModernModuleExtras(o, server);
  server.setRequestHandler('tools/call', (request, ctx) => callTool(o, request.params, ctx).catch(asProtocolError) as never);
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
  if (args !== undefined && !isObject(args)) throw new RpcError(-32602, 'tools/call: params.arguments must be an object');
  return { name, args: args ?? {} };
}

/** One round of a tools/call: the answers so far go in, a result or the next questions come out. */
async function callTool(o: ModernOptions, params: unknown, ctx: ServerContext): Promise<Record<string, unknown>> {
  const { core, principal } = o;
  const keys = core.roundKeys;
  const { name, args } = toolCallParams(params);
  const tool = core.tools.get(name);
  if (tool === undefined) throw new RpcError(-32602, `Unknown tool: ${name}`);
  const state = ctx.mcpReq.requestState<RoundPayload>();
  const round = InputRound.resume({
    keys, principal, tool: name, args, policySet: core.policySetId(), state, responses: ctx.mcpReq.inputResponses ?? {},
  });
  const callId = randomUUID();
  const envelope = envelopeOf(ctx);
  const sensitive = tool.definition.sensitiveArguments === true;
  const unbind = core.approvals.bind(callId, {
    sessionId: undefined,
    elicit: (req, signal) => round.approval(approvalForm(req, sensitive), signal, envelope.clientCapabilities?.['elicitation'] !== undefined),
  });
  const client = modernCallClient({ ctx, round, logger: core.logger, callId });
  try {
    const agent = envelope.clientInfo?.name;
    const trace = traceOf(ctx.mcpReq._meta as Record<string, unknown> | undefined, ctx.http?.req?.headers);
    const result = await core.calls.run(round.signal(ctx.mcpReq.signal), (signal) =>
      core.pipeline.call(name, args, { signal, callId, client, ...(agent !== undefined ? { agent } : {}), ...(trace !== undefined ? { trace } : {}) }),
    );
    const questions = await round.questions(result.isError);
    if (questions !== undefined) return questions;
    if (result.error?.code === 'UNKNOWN_TOOL') throw new RpcError(-32602, `Unknown tool: ${name}`);
    await client.settled();
    return toCallToolResult(result, callId) as CallToolResult as Record<string, unknown>;
  } catch (err) {
    if (err instanceof ServerClosingError) throw new RpcError(-32000, err.message);
    throw err;
  } finally {
    unbind();
  }
}
