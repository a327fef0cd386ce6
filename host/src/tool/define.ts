// defineTool: checks a definition once and compiles its validators once, so a call only runs them.
import { ToolDefinitionError } from './definition-error.js';
import { argumentSizeProblem, cloneJson, deepFreeze, isJson, isJsonObject } from './json.js';
import { dropNullsForOptional } from './null-as-absent.js';
import { compileParams } from './params.js';
import { compileCheck, plainlySatisfies, type Check } from './validation.js';
import type { Json, JsonObject, JsonSchema, OutputRender, ToolDefinition } from './types.js';
import { messageOf } from '../errors/index.js';

export const TOOL_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

export type ArgsCheck = { ok: true; args: JsonObject } | { ok: false; message: string };

/** A checked tool: the definition plus its compiled schemas and validators. */
export interface Tool {
  readonly name: string;
  readonly definition: Readonly<ToolDefinition>;
  /** Frozen JSON Schema of the arguments (what the model sees). */
  readonly inputSchema: Readonly<JsonSchema>;
  readonly outputSchema?: Readonly<JsonSchema>;
  readonly render: OutputRender;
  /**
   * Validates a copy of `args` and fills in schema `default`s, so execute, listeners and the audit
   * log all see the same complete arguments. The original is never touched.
   */
  checkArguments(args: unknown): ArgsCheck;
  checkOutput(value: Json): { ok: true } | { ok: false; message: string };
}

const defined = new WeakSet<Tool>();

export function isTool(value: unknown): value is Tool {
  return typeof value === 'object' && value !== null && defined.has(value as Tool);
}

export function defineTool(def: ToolDefinition): Tool {
  if (isTool(def)) return def;
  if (typeof def !== 'object' || def === null) throw new ToolDefinitionError('?', 'definition', 'must be an object');
  const name: unknown = def.name;
  if (typeof name !== 'string' || !TOOL_NAME_RE.test(name)) {
    throw new ToolDefinitionError(String(name), 'name', 'must match ^[a-z][a-z0-9_]{0,63}$');
  }
  checkFields(name, def);
  const inputSchema = inputSchemaOf(name, def);
  const field = def.parameters !== undefined ? 'parameters' : 'inputSchema';
  checkDefaults(name, field, inputSchema);
  const argsCheck = compileOrFail(name, field, inputSchema, true, 'argument');
  const { outputSchema, outputCheck, render } = outputOf(name, def);

  const tool: Tool = {
    name,
    definition: def,
    inputSchema: deepFreeze(inputSchema),
    ...(outputSchema !== undefined ? { outputSchema: deepFreeze(outputSchema) } : {}),
    render,
    checkArguments(args) {
      if (!isJsonObject(args as Json)) return { ok: false, message: 'arguments: must be a JSON object' };
      const tooLarge = argumentSizeProblem(args);
      if (tooLarge !== undefined) return { ok: false, message: tooLarge };
      if (!isJson(args)) return { ok: false, message: 'arguments: must be a JSON object' };
      const copy = cloneJson(args as JsonObject);
      dropNullsForOptional(copy, inputSchema);
      const r = argsCheck(copy);
      return r.ok ? { ok: true, args: copy } : r;
    },
    checkOutput(value) {
      return outputCheck === undefined ? { ok: true } : outputCheck(value);
    },
  };
  defined.add(tool);
  return Object.freeze(tool);
}

const failer =
  (name: string) =>
  (field: string, rule: string): never => {
    throw new ToolDefinitionError(name, field, rule);
  };

/** The definition's plain fields: description, functions, title, timeout, annotations. */
function checkFields(name: string, def: ToolDefinition): void {
  const fail = failer(name);
  if (typeof def.description !== 'string' || def.description.trim() === '')
    fail('description', 'must be a non-empty string');
  if (typeof def.execute !== 'function') fail('execute', 'must be a function');
  if (def.title !== undefined && typeof def.title !== 'string') fail('title', 'must be a string');
  for (const fn of ['finalizeContent', 'dispose'] as const) {
    if (def[fn] !== undefined && typeof def[fn] !== 'function') fail(fn, 'must be a function');
  }
  if (def.timeoutMs !== undefined && !(Number.isInteger(def.timeoutMs) && def.timeoutMs > 0)) {
    fail('timeoutMs', 'must be a positive integer (milliseconds)');
  }
  if (def.annotations !== undefined && !isJsonObject(def.annotations as Json)) fail('annotations', 'must be an object');
}

/** The arguments' JSON Schema: a raw inputSchema (closed unless the tool opts out) or the parameters DSL compiled. */
function inputSchemaOf(name: string, def: ToolDefinition): JsonSchema {
  const fail = failer(name);
  const allowUnknown = def.allowUnknownArguments === true;
  if (def.parameters !== undefined && def.inputSchema !== undefined) {
    fail('inputSchema', 'give either parameters or inputSchema, not both');
  }
  if (def.inputSchema === undefined) return compileParams(name, def.parameters ?? {}, allowUnknown);
  if (!isJsonObject(def.inputSchema) || !isJson(def.inputSchema)) fail('inputSchema', 'must be a JSON Schema object');
  if (def.inputSchema.type !== 'object') fail('inputSchema.type', 'must be "object" (arguments are a JSON object)');
  const inputSchema = cloneJson(def.inputSchema);
  // A raw schema is closed at the top level unless the tool opts out, like the DSL.
  if (!allowUnknown && inputSchema.additionalProperties === undefined) inputSchema.additionalProperties = false;
  return inputSchema;
}

/** The output's schema (compiled) and how it is rendered. */
function outputOf(
  name: string,
  def: ToolDefinition,
): { outputSchema: JsonSchema | undefined; outputCheck: Check | undefined; render: OutputRender } {
  const fail = failer(name);
  let outputSchema: JsonSchema | undefined;
  let outputCheck: Check | undefined;
  let render: OutputRender = 'json';
  if (def.output === undefined) return { outputSchema, outputCheck, render };
  if (!isJsonObject(def.output as Json)) fail('output', 'must be an object');
  if (def.output.schema !== undefined) {
    if (!isJsonObject(def.output.schema) || !isJson(def.output.schema))
      fail('output.schema', 'must be a JSON Schema object');
    outputSchema = cloneJson(def.output.schema);
    outputCheck = compileOrFail(name, 'output.schema', outputSchema, false, 'output');
  }
  if (def.output.render !== undefined) render = checkRender(name, def.output.render);
  // With render: mcp the output is an MCP result, not the value a schema describes.
  if (render === 'mcp' && outputSchema !== undefined)
    fail('output.schema', 'is not allowed with render: mcp (the module returns MCP content itself)');
  return { outputSchema, outputCheck, render };
}

function compileOrFail(tool: string, field: string, schema: JsonSchema, defaults: boolean, what: string): Check {
  try {
    return compileCheck(schema, what, { applyDefaults: defaults });
  } catch (err) {
    throw new ToolDefinitionError(tool, field, `invalid JSON Schema: ${messageOf(err)}`);
  }
}

function checkRender(tool: string, render: unknown): OutputRender {
  if (render === 'json' || render === 'text' || render === 'mcp') return render;
  if (
    isJsonObject(render as Json) &&
    typeof (render as JsonObject).template === 'string' &&
    Object.keys(render as object).length === 1
  ) {
    return { template: (render as { template: string }).template };
  }
  throw new ToolDefinitionError(tool, 'output.render', 'must be "json", "text", "mcp" or { template: string }');
}

/** Every `default` must itself satisfy its schema, or the filled-in arguments would be invalid. */
function checkDefaults(tool: string, field: string, schema: Json, path = ''): void {
  if (!isJsonObject(schema)) return;
  if ('default' in schema) {
    const { default: value, ...rest } = schema;
    if (value === undefined) return;
    // the common defaults (a scalar under type/enum/bounds) are checked without loading ajv at start-up
    if (!plainlySatisfies(rest, value)) {
      const r = compileOrFail(tool, `${field}${path}.default`, rest, false, 'default')(value);
      if (!r.ok)
        throw new ToolDefinitionError(tool, `${field}${path}.default`, `does not match its own schema (${r.message})`);
    }
  }
  const props = schema.properties;
  if (isJsonObject(props)) {
    for (const [k, sub] of Object.entries(props))
      checkDefaults(tool, field, sub, field === 'parameters' && path === '' ? `.${k}` : `${path}.properties.${k}`);
  }
  if (schema.items !== undefined) checkDefaults(tool, field, schema.items, `${path}.items`);
}
