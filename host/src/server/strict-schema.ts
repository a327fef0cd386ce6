// OpenAI's strict function calling accepts a subset of JSON Schema: every object closed
// (additionalProperties: false) with every property required, so an optional property becomes a
// required one that may be null; `default` is refused. This rewrites a tool's input schema into
// that form; the meaning for a caller is the same once nulls are read as "not given".
import type { Json, JsonObject, JsonSchema } from '../tool/index.js';

/** Keywords strict mode refuses; dropping them loses a hint, never a constraint the tool relies on. */
const REFUSED = new Set(['default']);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `schema` that also admits null (a type list gains 'null'; an enum gains null). */
function nullable(schema: JsonObject): JsonObject {
  const type = schema['type'];
  if (typeof type === 'string' || Array.isArray(type)) {
    const types = Array.isArray(type) ? type : [type];
    const out: JsonObject = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    const values = schema['enum'];
    if (Array.isArray(values) && !values.includes(null)) out['enum'] = [...values, null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function strictNode(node: Json): Json {
  if (Array.isArray(node)) return node.map(strictNode);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (REFUSED.has(key)) continue;
    if (key === 'properties' && isObject(value)) continue; // rewritten below
    out[key] = key === 'enum' || key === 'const' ? value : strictNode(value);
  }
  const properties = node['properties'];
  if (node['type'] === 'object' || isObject(properties)) {
    const props = isObject(properties) ? properties : {};
    const required = new Set(
      Array.isArray(node['required']) ? node['required'].filter((r): r is string => typeof r === 'string') : [],
    );
    const rewritten: JsonObject = {};
    for (const [name, schema] of Object.entries(props)) {
      const strict = strictNode(schema);
      rewritten[name] = required.has(name) || !isObject(strict) ? strict : nullable(strict);
    }
    out['properties'] = rewritten;
    out['required'] = Object.keys(props);
    out['additionalProperties'] = false;
  }
  return out;
}

/** The strict-mode form of an input schema (a new object; the tool's own is not touched). */
export function strictSchema(schema: Readonly<JsonSchema>): JsonSchema {
  const out = strictNode(structuredClone(schema) as JsonSchema);
  return isObject(out) ? out : { type: 'object', properties: {}, required: [], additionalProperties: false };
}
