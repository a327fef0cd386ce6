// The mutable state of one call between stages, and how it becomes a ToolResult.
import { deepFreeze, frozenJsonCopy, isJson, isJsonObject, ToolFailure } from '../tool/index.js';
import type { ContentBlock, ErrorCode, Json, JsonObject, Tool, ToolResult } from '../tool/index.js';
import { parseMcpEnvelope, renderContent } from './render.js';
import type { ExecOutcome } from './types.js';
import { messageOf } from '../errors/index.js';

export type CallState =
  | { ok: true; value: Json; content: ContentBlock[] }
  | { ok: false; error: { code: ErrorCode; message: string }; content: ContentBlock[] };

/** A call that ends without running (or with a failure): what a stage answers when it refuses. */
export type Refusal = Extract<CallState, { ok: false }>;

export function failed(code: ErrorCode, message: string): Refusal {
  return { ok: false, error: { code, message }, content: [{ type: 'text', text: message }] };
}

/** Validates a canonical value against output.schema and renders it; invalid -> INVALID_OUTPUT. */
export function succeeded(tool: Tool, value: Json): CallState {
  if (!isJson(value)) return failed('INVALID_OUTPUT', `tool "${tool.name}" produced a value that is not JSON`);
  const check = tool.checkOutput(value);
  if (!check.ok) return failed('INVALID_OUTPUT', `tool "${tool.name}" returned invalid output: ${check.message}`);
  return rendered(tool, value, false);
}

/**
 * A body's value as execute.ts leaves it: a copy nobody else holds, checked against output.schema,
 * then frozen. The outcome is frozen too, so a wrapper that hands it on unchanged hands on what was
 * checked, and fromOutcome renders it without walking and checking it a second time.
 */
class CheckedValue {
  readonly ok = true as const;
  readonly value: Json;

  constructor(value: Json) {
    this.value = value;
  }
}

export function checkedOutcome(frozen: Json): ExecOutcome {
  return Object.freeze(new CheckedValue(frozen));
}

/** A value that passed succeeded's checks, rendered; `isFrozenCopy`: a CheckedValue's. */
function rendered(tool: Tool, value: Json, isFrozenCopy: boolean): CallState {
  if (isFrozenCopy && tool.render !== 'mcp') return { ok: true, value, content: renderContent(value, tool.render) };
  if (tool.render === 'mcp') {
    // The module said what the client gets: its content blocks, and structuredContent as the value.
    const parsed = parseMcpEnvelope(value);
    if (!parsed.ok)
      return failed(
        'INVALID_OUTPUT',
        `tool "${tool.name}" returned an invalid MCP result (render: mcp): ${parsed.message}`,
      );
    return { ok: true, value: deepFreeze(parsed.envelope.structuredContent ?? null), content: parsed.envelope.content };
  }
  const frozen = frozenJsonCopy(value);
  return { ok: true, value: frozen, content: renderContent(frozen, tool.render) };
}

export function fromOutcome(tool: Tool, outcome: ExecOutcome): CallState {
  if (outcome instanceof CheckedValue) return rendered(tool, outcome.value, true);
  return outcome.ok ? succeeded(tool, outcome.value) : failed(outcome.error.code, outcome.error.message);
}

/** A thrown body: ToolFailure keeps its code, anything else is TOOL_ERROR. */
export function failureOf(err: unknown, tool: string): ExecOutcome & { ok: false } {
  if (err instanceof ToolFailure) return { ok: false, error: { code: err.code, message: err.message } };
  const msg = messageOf(err);
  return { ok: false, error: { code: 'TOOL_ERROR', message: `tool "${tool}" failed: ${msg}` } };
}

/**
 * structuredContent is set only for a JSON object value: MCP allows nothing else there. Arrays,
 * strings and numbers reach the model through content alone.
 */
export function toResult(state: CallState, meta: JsonObject): ToolResult {
  if (state.ok) {
    return isJsonObject(state.value)
      ? { isError: false, content: state.content, structuredContent: state.value, meta }
      : { isError: false, content: state.content, meta };
  }
  return { isError: true, content: state.content, error: { ...state.error }, meta };
}
