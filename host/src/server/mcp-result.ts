// A pipeline ToolResult as an MCP CallToolResult. Failures stay results (isError) so the model can
// read and correct them; only protocol mistakes become JSON-RPC errors (see mcp-server.ts).
// The decision trail (result.meta) stays out: it is for the audit log, and every byte here is
// parsed twice per call; the callId finds it there.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../tool/index.js';

export function toCallToolResult(result: ToolResult, callId: string): CallToolResult {
  const meta: Record<string, unknown> = { 'toolgate/callId': callId };
  if (result.error !== undefined) meta['toolgate/error'] = { code: result.error.code, message: result.error.message };
  const out: CallToolResult = {
    // Blocks were checked and copied when the result was made; MCP's shapes are the same.
    content: result.content as CallToolResult['content'],
    isError: result.isError,
    _meta: meta,
  };
  const sc = result.structuredContent;
  if (!result.isError && typeof sc === 'object' && sc !== null && !Array.isArray(sc)) out.structuredContent = sc;
  return out;
}
