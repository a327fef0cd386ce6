// Checks that a raw JSON Schema (inputSchema, output.schema) is itself valid against the draft
// 2020-12 meta-schema, so a broken schema fails at load instead of on the first call.
import { Ajv2020 } from 'ajv/dist/2020.js';

// Used only for meta-validation, and built on first use: compiling the meta-schema costs 30-90 ms,
// which a manifest whose schemas pass plainlyValid() never pays.
let ajv: Ajv2020 | undefined;

const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const STRING_KEYWORDS = new Set(['title', 'description', 'format', '$comment']);
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
const COUNT_KEYWORDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);
const BOOLEAN_KEYWORDS = new Set(['uniqueItems', 'readOnly', 'writeOnly', 'deprecated']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function uniqueStrings(v: unknown, allowed?: Set<string>): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string' && (allowed === undefined || allowed.has(x))) && new Set(v).size === v.length;
}

/**
 * True when `schema` uses only common keywords, each following its meta-schema rule as checked
 * here (so it is valid without the meta-schema); false means "not known" and ajv decides.
 * The same rules as plainlyValid in host/src/tool/validation.ts (the tool door does not export it).
 */
function plainlyValid(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema) || depth > 64) return false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type') {
      if (typeof v === 'string' ? !TYPES.has(v) : !(uniqueStrings(v, TYPES) && (v as unknown[]).length > 0)) return false;
    } else if (k === 'properties') {
      if (!isObject(v) || !Object.values(v).every((sub) => plainlyValid(sub, depth + 1))) return false;
    } else if (k === 'additionalProperties' || k === 'items') {
      if (!plainlyValid(v, depth + 1)) return false;
    } else if (k === 'required') {
      if (!uniqueStrings(v)) return false;
    } else if (k === 'enum') {
      if (!Array.isArray(v)) return false;
    } else if (k === 'default' || k === 'const') {
      // any value
    } else if (k === 'multipleOf') {
      if (typeof v !== 'number' || !(v > 0)) return false;
    } else if (STRING_KEYWORDS.has(k)) {
      if (typeof v !== 'string') return false;
    } else if (NUMBER_KEYWORDS.has(k)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) return false;
    } else if (COUNT_KEYWORDS.has(k)) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return false;
    } else if (BOOLEAN_KEYWORDS.has(k)) {
      if (typeof v !== 'boolean') return false;
    } else {
      return false;
    }
  }
  return true;
}

/** Returns undefined when valid, or the rule broken (e.g. `/type must be equal to one of the allowed values`). */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (plainlyValid(schema)) return undefined;
  ajv ??= new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const ok = ajv.validateSchema(schema as object);
  if (ok === true) return undefined;
  const first = ajv.errors?.[0];
  if (first === undefined) return 'is not a valid JSON Schema';
  const where = first.instancePath === '' ? '' : `${first.instancePath} `;
  return `is not a valid JSON Schema: ${where}${first.message ?? 'is invalid'}`;
}
