// The ToolDefinition a manifest describes, minus the sandbox: shared by the bridge (which adds the
// real execute) and by load-time checking and `inspect` (which never run the module).
import {
  cloneJson,
  defineTool,
  ToolDefinitionError,
  type Json,
  type JsonObject,
  type JsonSchema,
  type Tool,
  type ToolDefinition,
} from '../tool/index.js';
import { ManifestError } from './errors.js';
import { sandboxRefusal } from './reach.js';
import type { Manifest } from './schema.js';

export interface DefinitionParts {
  execute(args: Readonly<JsonObject>, exec: Parameters<ToolDefinition['execute']>[1]): Promise<Json> | Json;
  dispose?: () => Promise<void> | void;
  instances?: ToolDefinition['instances'];
  /** Resolved mounts (real host paths); defaults to the manifest's paths as written. */
  allowedPaths?: Record<string, { host: string; mode: 'ro' | 'rw' }>;
}

export function manifestDefinition(m: Manifest, parts: DefinitionParts): ToolDefinition {
  const caps = m.capabilities;
  const def: ToolDefinition = {
    name: m.name,
    description: m.description,
    output: {
      render: m.output.render,
      ...(m.output.schema !== undefined ? { schema: structuredClone(m.output.schema) } : {}),
    },
    timeoutMs: caps.timeout_ms,
    capabilities: {
      allowedHosts: [...caps.allowed_hosts],
      allowedPaths: structuredClone(parts.allowedPaths ?? caps.allowed_paths),
      secrets: [...caps.secrets],
      maxPages: caps.memory.max_pages,
      timeoutMs: caps.timeout_ms,
      maxOutputBytes: caps.max_output_bytes,
      mcp: [...caps.mcp],
    },
    execute: parts.execute,
  };
  const granted = def.capabilities;
  if (granted !== undefined) def.sandboxRefusal = (args) => sandboxRefusal(granted, args);
  if (parts.dispose !== undefined) def.dispose = parts.dispose;
  if (parts.instances !== undefined) def.instances = parts.instances;
  if (m.parameters !== undefined) def.parameters = structuredClone(m.parameters);
  if (m.inputSchema !== undefined) def.inputSchema = structuredClone(m.inputSchema);
  if (m.execution !== undefined && m.execution.task !== 'forbidden')
    def.execution = { task: m.execution.task, syncMs: m.execution.sync_ms };
  if (m.annotations !== undefined) {
    if (m.annotations.title !== undefined) def.title = m.annotations.title;
    def.annotations = structuredClone(m.annotations);
  }
  return def;
}

function notRunnable(): never {
  throw new Error('this definition is for checking only');
}

/**
 * Runs the tool model's own definition checks (schema compilation, defaults matching their
 * schemas) so a manifest the registry would refuse fails at load, naming the manifest file.
 */
export function checkedTool(m: Manifest, file: string): Tool {
  try {
    return defineTool(manifestDefinition(m, { execute: notRunnable }));
  } catch (err) {
    if (err instanceof ToolDefinitionError) {
      const prefix = `tool "${err.tool}": ${err.field}: `;
      const rule = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
      throw new ManifestError('INVALID_MANIFEST', file, [{ path: err.field, rule }]);
    }
    throw err;
  }
}

/** The JSON Schema of the arguments exactly as the model will see it (the tool model compiles the DSL). */
export function inputSchemaOf(m: Manifest, file: string): JsonSchema {
  return cloneJson(checkedTool(m, file).inputSchema as JsonSchema);
}
