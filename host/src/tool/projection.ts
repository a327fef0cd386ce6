// What a model may see of a tool. An allowlist: a new host-only field stays hidden by default.
import { cloneJson } from './json.js';
import type { Tool } from './define.js';
import type { JsonObject, JsonSchema, ToolAnnotations } from './types.js';

export interface ModelToolView {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  title?: string;
  annotations?: ToolAnnotations;
  outputSchema?: JsonSchema;
}

/** Which optional slots the transport has (MCP has all three; plain function-calling APIs none). */
export interface ProjectionSlots {
  title?: boolean;
  annotations?: boolean;
  outputSchema?: boolean;
}

/** A deep copy: callers may mutate it without touching the registered tool. */
export function modelView(
  tool: Tool,
  slots: ProjectionSlots = { title: true, annotations: true, outputSchema: true },
): ModelToolView {
  const def = tool.definition;
  const view: ModelToolView = {
    name: tool.name,
    description: def.description,
    inputSchema: cloneJson(tool.inputSchema as JsonSchema),
  };
  if (slots.title === true && def.title !== undefined) view.title = def.title;
  if (slots.annotations === true && def.annotations !== undefined) {
    view.annotations = cloneJson(def.annotations as JsonObject) as ToolAnnotations;
  }
  if (slots.outputSchema === true && tool.outputSchema !== undefined)
    view.outputSchema = cloneJson(tool.outputSchema as JsonSchema);
  return view;
}
