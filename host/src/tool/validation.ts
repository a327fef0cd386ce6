// JSON Schema validation (ajv, draft 2020-12). No type coercion, so "3" is never an integer.
// Unknown formats are ignored rather than fatal, since manifests from third parties use formats
// we do not know.
//
// Start-up cost: building ajv instances and compiling validators was ~200 ms of CPU for a server
// with 20 tools, before the first tools/list. So the instances are built on first use, a schema
// is checked against the meta-schema at definition (a bad schema is still refused there) and its
// validator is compiled on the first value it checks, once per distinct schema text.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { formatPath } from './json.js';
import type { Json, JsonSchema } from './types.js';

const common = { strict: false, allErrors: true, coerceTypes: false, logger: false } as const;
/** Arguments: defaults are written into the (cloned) arguments. Also checks schemas themselves. */
let argsAjv: Ajv2020 | undefined;
/** Output: never mutates what it checks. Its schemas were checked by argsAjv already. */
let plainAjv: Ajv2020 | undefined;

function argsInstance(): Ajv2020 {
  return (argsAjv ??= new Ajv2020({ ...common, useDefaults: true }));
}

function plainInstance(): Ajv2020 {
  // validateSchema: false spares this instance its own meta-schema compile (~30 ms).
  return (plainAjv ??= new Ajv2020({ ...common, useDefaults: false, validateSchema: false }));
}

/** Compiled validators by defaults flag + schema text: tools with the same schema share one. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 2000;

/**
 * What the meta-schema cannot vouch for: references (may not resolve) and regular expressions
 * (may not parse). Schemas using them are compiled at definition, so those errors still refuse it.
 */
const COMPILE_NOW = /"(\$ref|\$dynamicRef|\$recursiveRef|pattern|patternProperties)":/;

export type Check = (value: Json) => { ok: true } | { ok: false; message: string };

/**
 * Checks `schema` against the draft 2020-12 meta-schema (throws ajv's message when it is invalid)
 * and returns a check that compiles the validator on first use.
 */
export function compileCheck(schema: JsonSchema, what: string, opts: { applyDefaults: boolean }): Check {
  const text = JSON.stringify(schema);
  const key = `${opts.applyDefaults ? 'd' : 'p'}${text}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    const meta = argsInstance();
    if (meta.validateSchema(schema) !== true) throw new Error(`schema is invalid: ${meta.errorsText(meta.errors)}`);
    if (COMPILE_NOW.test(text)) validate = compile(key, schema, opts.applyDefaults);
  }
  return (value) => {
    try {
      validate ??= compile(key, schema, opts.applyDefaults);
    } catch (err) {
      // Only what the meta-schema passed and compiling refused lands here; say whose it is.
      return { ok: false, message: `${what}s: the tool's schema cannot be used: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (validate(value)) return { ok: true };
    return { ok: false, message: describeErrors(what, value, validate.errors ?? []) };
  };
}

function compile(key: string, schema: JsonSchema, applyDefaults: boolean): ValidateFunction {
  const found = compiled.get(key);
  if (found !== undefined) return found;
  const validate = (applyDefaults ? argsInstance() : plainInstance()).compile(schema);
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(key, validate);
  return validate;
}

/** `argument "items[2].name": must be string` — field path first, then the rule. */
function describeErrors(what: string, data: Json, errors: readonly ErrorObject[]): string {
  const lines = new Set<string>();
  for (const e of errors) {
    const path = toSegments(e.instancePath, data);
    let rule: string;
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required' && typeof params.missingProperty === 'string') {
      path.push(params.missingProperty);
      rule = 'is required';
    } else if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      path.push(params.additionalProperty);
      rule = 'is not allowed (unknown key)';
    } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      rule = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    } else {
      rule = e.message ?? `fails ${e.keyword}`;
    }
    const where = path.length === 0 ? `${what}s` : `${what} "${formatPath(path)}"`;
    lines.add(`${where}: ${rule}`);
    if (lines.size >= 5) break;
  }
  return [...lines].join('; ');
}

/** JSON pointer -> path segments; a segment is an index only where the data there is an array. */
function toSegments(pointer: string, data: Json): (string | number)[] {
  if (pointer === '') return [];
  const out: (string | number)[] = [];
  let cur: Json | undefined = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      const i = Number(key);
      out.push(i);
      cur = cur[i];
    } else {
      out.push(key);
      cur = cur !== null && typeof cur === 'object' ? cur[key] : undefined;
    }
  }
  return out;
}
