// The unsandboxed reference for issue 15's table: the MCP SDK's low-level Server over stdio with the
// same 20 tools toolgate serves in the bench (wasm_echo, echo, echo_2..echo_19), the echo done
// in-process (the arguments back as JSON, rendered as text), no pipeline, no sandbox.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_NAMES } from './mcp.mjs';

// argv[2]: serve only the first N of them (the first-call row serves as many tools as toolgate's examples),
// or a JSON file { tools, results }: serve exactly that tool list (a client then does the same work
// on it as on toolgate's, e.g. the SDK client compiling each outputSchema) and answer a tool named
// in `results` with that result, as recorded from toolgate.
const given = process.argv[2]?.endsWith('.json') ? JSON.parse(readFileSync(process.argv[2], 'utf8')) : undefined;
const served = given
  ? given.tools.map((t) => t.name)
  : TOOL_NAMES.slice(0, Number(process.argv[2] ?? TOOL_NAMES.length));
const list =
  given?.tools ??
  served.map((name) => ({
    name,
    description: 'Returns its arguments unchanged.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
  }));
const names = new Set(served);
const server = new Server({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
server.setRequestHandler(CallToolRequestSchema, (req) => {
  if (!names.has(req.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
  const recorded = given?.results?.[req.params.name];
  if (recorded !== undefined) return recorded;
  const args = req.params.arguments ?? {};
  if (typeof args.text !== 'string')
    return { isError: true, content: [{ type: 'text', text: 'text: must be a string' }] };
  const value = JSON.parse(JSON.stringify(args));
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false };
});
await server.connect(new StdioServerTransport());
