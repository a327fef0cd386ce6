// Tool lists in the shapes the big function-calling APIs take. Only the model-visible projection is
// ever exported; host-only fields (capabilities, execute...) cannot leak through here.
import { modelView, type JsonSchema, type ModelToolView, type Tool } from '../tool/index.js';
import { strictSchema } from './strict-schema.js';

/** openai: Chat Completions tools; openai-responses: the Responses API's flat function tools. */
export const SCHEMA_FORMATS = ['mcp', 'openai', 'openai-responses', 'anthropic'] as const;
/** The formats whose APIs have OpenAI's strict mode (`--strict`). */
export const STRICT_FORMATS: readonly SchemaFormat[] = ['openai', 'openai-responses'];
export type SchemaFormat = (typeof SCHEMA_FORMATS)[number];

export function isSchemaFormat(value: unknown): value is SchemaFormat {
  return typeof value === 'string' && (SCHEMA_FORMATS as readonly string[]).includes(value);
}

/** OpenAI function names and Anthropic tool names share this rule. */
export const EXPORT_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Makes `name` fit EXPORT_NAME_RE and differ from every name in `used` (which it joins). Tool
 * names already fit (architecture.md §3), so this only bites on names from elsewhere; it never returns a
 * clash, because two tools answering to one name would send calls to the wrong one.
 */
export function sanitizeName(name: string, used: Set<string>): string {
  let base = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  if (base === '') base = 'tool';
  let candidate = base;
  for (let i = 2; used.has(candidate); i++) {
    const suffix = `_${i}`;
    candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`;
  }
  used.add(candidate);
  return candidate;
}

/** MCP carries outputSchema only for object outputs (structuredContent must be an object). */
export function mcpToolView(tool: Tool): ModelToolView {
  const view = modelView(tool, { title: true, annotations: true, outputSchema: true });
  if (view.outputSchema !== undefined && view.outputSchema.type !== 'object') delete view.outputSchema;
  return view;
}

export type ExportedTools =
  | { tools: ModelToolView[] }
  | { type: 'function'; function: { name: string; description: string; parameters: JsonSchema; strict?: boolean } }[]
  | { type: 'function'; name: string; description: string; parameters: JsonSchema; strict: boolean }[]
  | { name: string; description: string; input_schema: JsonSchema }[];

export interface ExportOptions {
  /** OpenAI strict mode: schemas rewritten by strictSchema and `strict: true` (openai formats only). */
  strict?: boolean;
}

export function exportTools(tools: readonly Tool[], format: SchemaFormat, options: ExportOptions = {}): ExportedTools {
  if (format === 'mcp') return { tools: tools.map(mcpToolView) };
  const used = new Set<string>();
  const plain = tools.map((t) => modelView(t, {}));
  const strict = options.strict === true && STRICT_FORMATS.includes(format);
  const parameters = (schema: JsonSchema): JsonSchema => (strict ? strictSchema(schema) : schema);
  if (format === 'openai') {
    return plain.map((v) => ({
      type: 'function' as const,
      function: {
        name: sanitizeName(v.name, used),
        description: v.description,
        parameters: parameters(v.inputSchema),
        ...(strict ? { strict: true } : {}),
      },
    }));
  }
  if (format === 'openai-responses') {
    // The Responses API's strict defaults to true: say false unless the schema was made strict.
    return plain.map((v) => ({
      type: 'function' as const,
      name: sanitizeName(v.name, used),
      description: v.description,
      parameters: parameters(v.inputSchema),
      strict,
    }));
  }
  return plain.map((v) => ({
    name: sanitizeName(v.name, used),
    description: v.description,
    input_schema: v.inputSchema,
  }));
}
