// JSON Schema validation (ajv, draft 2020-12). No type coercion, so "3" is never an integer.
// Unknown formats are ignored rather than fatal, since manifests from third parties use formats
// we do not know.
//
// Start-up cost: building ajv instances, compiling the draft 2020-12 meta-schema (30-90 ms on
// this machine) and compiling validators was ~200 ms of CPU for a server with 20 tools, before
// the first tools/list. So: instances are built on first use; a schema made only of the common
// keywords checked by plainlyValid() is known valid without the meta-schema, anything else is
// checked against it (a bad schema is still refused at definition either way); and a validator
// is compiled on the first value it checks, once per distinct schema text.
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { ajvRegExpEngine } from '../regex/index.js';
import { formatPath } from './json.js';
import type { Json, JsonSchema } from './types.js';
import { messageOf } from '../errors/index.js';

// ajv itself is loaded on first use too (~35 ms of start-up otherwise); it is CommonJS, so a
// synchronous require keeps defineTool and the checks synchronous. The bundled command points
// AJV_2020 at ajv bundled into one file beside its chunks (scripts/bundle.mjs): resolving and
// compiling ajv's ~100 files was ~45 ms of a fresh server's first call, one file ~10 ms
// (docs/decisions.md, "First call of a fresh server, third round").
const AJV_2020 = 'ajv/dist/2020.js';
const requireCjs = createRequire(import.meta.url);
function newAjv(opts: ConstructorParameters<typeof Ajv2020>[0]): Ajv2020 {
  const { Ajv2020: Ctor } = requireCjs(AJV_2020) as typeof import('ajv/dist/2020.js');
  return new Ctor(opts);
}

// Every `pattern` / `patternProperties` runs on RE2 (linear time): a schema's regex comes from a
// manifest author, and V8's backtracking engine would let ^(a+)+$ freeze the whole process.
const common = {
  strict: false,
  allErrors: true,
  coerceTypes: false,
  logger: false,
  code: { regExp: ajvRegExpEngine },
} as const;
/** Checks schemas the fast path cannot vouch for against the meta-schema. */
let metaAjv: Ajv2020 | undefined;
/** Arguments: defaults are written into the (cloned) arguments. */
let argsAjv: Ajv2020 | undefined;
/** Output: never mutates what it checks. */
let plainAjv: Ajv2020 | undefined;
/** The same two, stopping at the first error: the pass every value gets first. */
let argsFirstAjv: Ajv2020 | undefined;
let plainFirstAjv: Ajv2020 | undefined;

// The compiling instances skip ajv's own meta-schema check: compileCheck has done it already.
function argsInstance(): Ajv2020 {
  return (argsAjv ??= newAjv({ ...common, useDefaults: true, validateSchema: false }));
}

function plainInstance(): Ajv2020 {
  return (plainAjv ??= newAjv({ ...common, useDefaults: false, validateSchema: false }));
}

function firstErrorInstance(applyDefaults: boolean): Ajv2020 {
  if (applyDefaults)
    return (argsFirstAjv ??= newAjv({ ...common, allErrors: false, useDefaults: true, validateSchema: false }));
  return (plainFirstAjv ??= newAjv({ ...common, allErrors: false, useDefaults: false, validateSchema: false }));
}

/**
 * Listing every error costs work in proportion to the errors: 400,000 unknown keys in a 4 MB body
 * held the thread 2+ s. So every value is checked by a validator that stops at its first error, and
 * only a value of at most this many JSON values is checked again for the fuller message.
 */
const FULL_REPORT_MAX_VALUES = 2_000;

/** Whether `value` holds at most `max` JSON values (counting stops as soon as it is over). */
function small(value: unknown, max: number): boolean {
  let left = max;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (--left < 0) return false;
    const v = stack.pop();
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) stack.push(x);
  }
  return true;
}

/** Compiled validators by defaults flag + schema text: tools with the same schema share one. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 2000;

/**
 * What the meta-schema cannot vouch for: references (may not resolve) and regular expressions
 * (may not parse). Schemas using them are compiled at definition, so those errors still refuse it.
 */
const COMPILE_NOW = /"(\$ref|\$dynamicRef|\$recursiveRef|pattern|patternProperties)":/;

const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const STRING_KEYWORDS = new Set(['title', 'description', 'format', '$comment']);
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
const COUNT_KEYWORDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);
const BOOLEAN_KEYWORDS = new Set(['uniqueItems', 'readOnly', 'writeOnly', 'deprecated']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function uniqueStrings(v: unknown, allowed?: Set<string>): boolean {
  return (
    Array.isArray(v) &&
    v.every((x) => typeof x === 'string' && (allowed === undefined || allowed.has(x))) &&
    new Set(v).size === v.length
  );
}

/**
 * True when `schema` uses only common keywords and each follows its draft 2020-12 meta-schema
 * rule as checked here, so it is valid without compiling the meta-schema. False means "not
 * known" (another keyword, or a rule broken), and the meta-schema decides. Never true for a
 * schema the meta-schema would refuse: every keyword accepted here is checked as strictly.
 */
export function plainlyValid(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema) || depth > 64) return false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type') {
      if (typeof v === 'string' ? !TYPES.has(v) : !(uniqueStrings(v, TYPES) && (v as unknown[]).length > 0))
        return false;
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

/** Keywords that only annotate: no value is refused for them. */
const ANNOTATION_KEYWORDS = ['title', 'description', '$comment', 'deprecated', 'readOnly', 'writeOnly'];

/** Keywords plainlySatisfies() decides; anything else (format, multipleOf, ...) leaves it to ajv. */
const SATISFY_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  ...ANNOTATION_KEYWORDS,
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
]);

function hasType(value: string | number | boolean | null, type: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'number') return typeof value === 'number';
  if (type === 'null') return value === null;
  return typeof value === type; // string, boolean; object and array never match a scalar
}

/**
 * True when a scalar `value` is known to satisfy a plainlyValid `schema` made only of
 * SATISFY_KEYWORDS, as ajv would decide (lengths in code points, enum by ===). False means "not
 * known": ajv decides. Lets a parameter's default be checked at definition without loading ajv
 * (docs/decisions.md, issue 27).
 */
export function plainlySatisfies(schema: unknown, value: unknown): boolean {
  if (!isObject(schema) || !plainlyValid(schema) || !Object.keys(schema).every((k) => SATISFY_KEYWORDS.has(k)))
    return false;
  if (
    !(
      typeof value === 'string' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      typeof value === 'boolean' ||
      value === null
    )
  )
    return false;
  const { type } = schema;
  if (type !== undefined && !(Array.isArray(type) ? type : [type]).some((t) => hasType(value, t))) return false;
  if (schema.enum !== undefined && !(schema.enum as unknown[]).some((e) => e === value)) return false;
  if ('const' in schema && schema.const !== value) return false;
  if (typeof value === 'number') {
    const n = (k: string): number | undefined => schema[k] as number | undefined;
    if (value < (n('minimum') ?? -Infinity) || value > (n('maximum') ?? Infinity)) return false;
    if (value <= (n('exclusiveMinimum') ?? -Infinity) || value >= (n('exclusiveMaximum') ?? Infinity)) return false;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (
      length < ((schema.minLength as number | undefined) ?? 0) ||
      length > ((schema.maxLength as number | undefined) ?? Infinity)
    )
      return false;
  }
  return true;
}

/** Keywords of an object schema plainObjectCheck() decides; any other leaves the schema to ajv. */
const OBJECT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', ...ANNOTATION_KEYWORDS]);

/**
 * For an object schema whose properties are each made of SATISFY_KEYWORDS (and `default`): a check
 * that is true only for a value ajv, with the same options, accepts, after filling absent defaults
 * into it as ajv's useDefaults does. False means "not known": ajv decides (the value then already
 * holds the defaults ajv would have filled). undefined for any other schema, and for one naming a
 * property Object.prototype has (where ajv reads inherited values). A fresh server's first call of a
 * tool then loads no ajv (docs/decisions.md, "First call of a fresh server, third round").
 */
export function plainObjectCheck(schema: unknown, applyDefaults: boolean): ((value: Json) => boolean) | undefined {
  if (!isObject(schema) || schema.type !== 'object' || !plainlyValid(schema)) return undefined;
  if (!Object.keys(schema).every((k) => OBJECT_KEYWORDS.has(k))) return undefined;
  const additional = schema.additionalProperties;
  if (additional !== undefined && typeof additional !== 'boolean') return undefined;
  const required = (schema.required ?? []) as string[];
  const checks = new Map<string, Record<string, unknown>>();
  const defaults: [string, Json][] = [];
  for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    if (!isObject(sub) || key in Object.prototype) return undefined;
    const { default: fill, ...rest } = sub;
    if (!Object.keys(rest).every((k) => SATISFY_KEYWORDS.has(k))) return undefined;
    if (applyDefaults && 'default' in sub) defaults.push([key, fill as Json]);
    checks.set(key, rest);
  }
  if (required.some((key) => key in Object.prototype)) return undefined;
  return (value) => {
    if (!isObject(value)) return false;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const [key, fill] of defaults) if (!Object.hasOwn(value, key)) value[key] = structuredClone(fill);
    if (!required.every((key) => Object.hasOwn(value, key))) return false;
    for (const [key, v] of Object.entries(value)) {
      const sub = checks.get(key);
      if (sub === undefined ? additional === false : !plainlySatisfies(sub, v)) return false;
    }
    return true;
  };
}

export type Check = (value: Json) => { ok: true } | { ok: false; message: string };

/**
 * undefined when `schema` is valid draft 2020-12, else the first rule it breaks, e.g.
 * `is not a valid JSON Schema: /type must be equal to one of the allowed values`. Cheap for common
 * schemas (no meta-schema compile).
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (plainlyValid(schema)) return undefined;
  const meta = (metaAjv ??= newAjv({ ...common }));
  if (meta.validateSchema(schema as object) === true) return undefined;
  const first = meta.errors?.[0];
  if (first === undefined) return 'is not a valid JSON Schema';
  const where = first.instancePath === '' ? '' : `${first.instancePath} `;
  return `is not a valid JSON Schema: ${where}${first.message ?? 'is invalid'}`;
}

/**
 * Checks that `schema` is valid draft 2020-12 (throws ajv's message when it is not) and returns
 * a check that compiles the validator on first use.
 */
export function compileCheck(schema: JsonSchema, what: string, opts: { applyDefaults: boolean }): Check {
  const text = JSON.stringify(schema);
  const key = `${opts.applyDefaults ? 'd' : 'p'}${text}`;
  const firstKey = `1${key}`;
  const firstInstance = (): Ajv2020 => firstErrorInstance(opts.applyDefaults);
  let first = compiled.get(firstKey);
  if (first === undefined) {
    const problem = jsonSchemaProblem(schema);
    if (problem !== undefined) throw new Error(`schema ${problem}`);
    // a plainly valid schema holds no $ref and no pattern: the text may still match on a property
    // so named (grep_files' `pattern`), which loaded ajv and compiled at start-up for nothing
    if (!plainlyValid(schema) && COMPILE_NOW.test(text)) first = compile(firstKey, schema, firstInstance());
  }
  let full: ValidateFunction | undefined;
  const plain = plainObjectCheck(schema, opts.applyDefaults);
  return (value) => {
    // Until its validator is compiled (a background warm-up does), a value the plain check vouches
    // for needs no ajv: a tool's first call does not pay for loading it and compiling.
    if (first === undefined && plain?.(value) === true) return { ok: true };
    try {
      first ??= compile(firstKey, schema, firstInstance());
      if (first(value)) return { ok: true };
      // the fuller message (every error, up to five lines) only for a value small enough
      if (small(value, FULL_REPORT_MAX_VALUES)) {
        full ??= compile(key, schema, opts.applyDefaults ? argsInstance() : plainInstance());
        if (!full(value)) return { ok: false, message: describeErrors(what, value, full.errors ?? []) };
      }
    } catch (err) {
      // Only what the meta-schema passed and compiling refused lands here; say whose it is.
      return { ok: false, message: `${what}s: the tool's schema cannot be used: ${messageOf(err)}` };
    }
    return { ok: false, message: describeErrors(what, value, first.errors ?? []) };
  };
}

function compile(key: string, schema: JsonSchema, instance: Ajv2020): ValidateFunction {
  const found = compiled.get(key);
  if (found !== undefined) return found;
  const validate = instance.compile(schema);
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
