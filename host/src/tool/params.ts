// The parameter DSL compiled to JSON Schema. Every spec is checked first, so a bad spec fails at
// registration with the tool and the field named, never later inside a call.
import { ToolDefinitionError } from './definition-error.js';
import { isJson, isJsonObject } from './json.js';
import type { Json, JsonObject, JsonSchema, ParamSpec, ParamsSpec } from './types.js';

const PARAM_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
const SPEC_KEYS = new Set(['type', 'required', 'description', 'enum', 'default', 'items', 'properties']);
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** `{ key: spec }` -> `{ type:'object', properties, required }`; closed unless unknown keys are allowed. */
export function compileParams(tool: string, params: unknown, allowUnknown: boolean): JsonSchema {
  return compileObject(tool, 'parameters', params, allowUnknown);
}

function compileObject(tool: string, field: string, props: unknown, allowUnknown: boolean): JsonSchema {
  if (!isPlainRecord(props)) throw new ToolDefinitionError(tool, field, 'must be an object of parameter specs');
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(props)) {
    const at = `${field}.${key}`;
    if (!NAME_RE.test(key)) {
      throw new ToolDefinitionError(tool, at, 'parameter names must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$');
    }
    properties[key] = compileParam(tool, at, spec, allowUnknown);
    if (isPlainRecord(spec) && spec.required === true) required.push(key);
  }
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  if (!allowUnknown) schema.additionalProperties = false;
  return schema;
}

function compileParam(tool: string, field: string, spec: unknown, allowUnknown: boolean): JsonSchema {
  if (!isPlainRecord(spec)) throw new ToolDefinitionError(tool, field, 'must be a parameter spec object');
  for (const key of Object.keys(spec)) {
    if (!SPEC_KEYS.has(key)) {
      throw new ToolDefinitionError(tool, `${field}.${key}`, `unknown key (allowed: ${[...SPEC_KEYS].join(', ')})`);
    }
  }
  const type = spec.type;
  if (typeof type !== 'string' || !(PARAM_TYPES as readonly string[]).includes(type)) {
    throw new ToolDefinitionError(tool, `${field}.type`, `must be one of ${PARAM_TYPES.join(', ')}`);
  }
  if (spec.required !== undefined && typeof spec.required !== 'boolean') {
    throw new ToolDefinitionError(tool, `${field}.required`, 'must be a boolean');
  }
  let schema: JsonSchema;
  if (type === 'object') {
    schema =
      spec.properties === undefined
        ? { type: 'object' }
        : compileObject(tool, `${field}.properties`, spec.properties, allowUnknown);
  } else {
    if (spec.properties !== undefined) {
      throw new ToolDefinitionError(tool, `${field}.properties`, 'only allowed when type is object');
    }
    schema = { type };
  }
  if (type === 'array') {
    if (spec.items !== undefined) schema.items = compileParam(tool, `${field}.items`, spec.items, allowUnknown);
  } else if (spec.items !== undefined) {
    throw new ToolDefinitionError(tool, `${field}.items`, 'only allowed when type is array');
  }
  if (spec.description !== undefined) {
    if (typeof spec.description !== 'string') {
      throw new ToolDefinitionError(tool, `${field}.description`, 'must be a string');
    }
    schema.description = spec.description;
  }
  if (spec.enum !== undefined) {
    if (!Array.isArray(spec.enum) || spec.enum.length === 0 || !isJson(spec.enum)) {
      throw new ToolDefinitionError(tool, `${field}.enum`, 'must be a non-empty array of JSON values');
    }
    schema.enum = spec.enum;
  }
  if ('default' in spec) {
    if (spec.default === undefined || !isJson(spec.default)) {
      throw new ToolDefinitionError(tool, `${field}.default`, 'must be a JSON value');
    }
    schema.default = spec.default;
  }
  return schema;
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return (
    isJsonObject(v as Json) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
  );
}

export type { ParamSpec, ParamsSpec };
