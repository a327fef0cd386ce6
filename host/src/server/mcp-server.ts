// One MCP session: the SDK's low-level Server with raw JSON Schema, answering tools/list from the
// registry and tools/call through the pipeline. Over HTTP there is one of these per session.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ApprovalOutcome, ApprovalRequest } from '../pipeline/index.js';
import { ServerClosingError } from './call-tracker.js';
import { approvalForm, outcomeOf } from './elicit.js';
import { toCallToolResult } from './mcp-result.js';
import { mcpToolView } from './schema-export.js';
import type { SidecarCore } from './core.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const SERVER_NAME = 'toolgate';

/**
 * Matches any tools/call so that a malformed one reaches the SDK's own check, which answers
 * InvalidParams; the strict schema here would fail earlier, as an InternalError.
 */
const AnyToolCall = z.looseObject({ method: z.literal('tools/call'), params: z.unknown() });

export function createMcpServer(core: SidecarCore): Server {
  const server = new Server(
    { name: SERVER_NAME, version: core.version },
    { capabilities: { tools: { listChanged: true } } },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => {
    const tools = core.tools.list().map(mcpToolView);
    core.onToolsListed();
    return { tools };
  });

  server.setRequestHandler(AnyToolCall, async (raw, extra) => {
    // The SDK's wrapper validated the request against CallToolRequestSchema before calling us;
    // parsing it again would cost every call, so only narrow what we read.
    const { name, args } = toolCallParams(raw);
    // An unknown tool is a protocol mistake (the client did not use tools/list), not a tool failure.
    if (core.tools.get(name) === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const callId = randomUUID();
    const unbind = core.approvals.bind(callId, {
      sessionId: extra.sessionId,
      ...(server.getClientCapabilities()?.elicitation !== undefined ? { elicit: (req, signal) => elicit(core, extra, req, signal) } : {}),
    });
    const progressToken = extra._meta?.progressToken;
    const progress = async (value: number, message: string) => {
      try {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: value, total: 1, message } });
      } catch (err) {
        core.logger.debug({ err, callId }, 'progress notification not delivered');
      }
    };
    try {
      // Without a progress token there is nothing to send: skip the awaits (two per call).
      if (progressToken !== undefined) await progress(0, `calling ${name}`);
      const agent = server.getClientVersion()?.name;
      const result = await core.calls.run(extra.signal, (signal) =>
        core.pipeline.call(name, args, { signal, callId, ...(agent !== undefined ? { agent } : {}) }),
      );
      // Unregistered between the check above and dispatch: still the client's mistake.
      if (result.error?.code === 'UNKNOWN_TOOL') throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      if (progressToken !== undefined) await progress(1, result.isError ? `${name} failed` : `${name} done`);
      return toCallToolResult(result, callId);
    } catch (err) {
      if (err instanceof ServerClosingError) throw new McpError(ErrorCode.InternalError, err.message);
      throw err;
    } finally {
      unbind();
    }
  });
  return server;
}

function toolCallParams(raw: { params?: unknown }): { name: string; args: unknown } {
  const params = typeof raw.params === 'object' && raw.params !== null ? (raw.params as Record<string, unknown>) : {};
  const name = params.name;
  if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'tools/call: params.name must be a string');
  return { name, args: params.arguments ?? {} };
}

/** Asks the client's user over the same session, tied to the tools/call request that asked. */
async function elicit(core: SidecarCore, extra: Extra, req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
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
