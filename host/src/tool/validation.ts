// JSON Schema validation (ajv, draft 2020-12). Validators are compiled once per tool at definition;
// no type coercion, so "3" is never an integer. Unknown formats are ignored rather than fatal, since
// manifests from third parties use formats we do not know.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { formatPath } from './json.js';
import type { Json, JsonSchema } from './types.js';

const common = { strict: false, allErrors: true, coerceTypes: false, logger: false } as const;
/** Arguments: defaults are written into the (cloned) arguments before they are frozen. */
const argsAjv = new Ajv2020({ ...common, useDefaults: true });
/** Output and defaults: never mutates what it checks. */
const plainAjv = new Ajv2020({ ...common, useDefaults: false });

export type Check = (value: Json) => { ok: true } | { ok: false; message: string };

/** Compiles `schema`; throws ajv's own message when the schema itself is invalid. */
export function compileCheck(schema: JsonSchema, what: string, opts: { applyDefaults: boolean }): Check {
  const validate: ValidateFunction = (opts.applyDefaults ? argsAjv : plainAjv).compile(schema);
  return (value) => {
    if (validate(value)) return { ok: true };
    return { ok: false, message: describeErrors(what, value, validate.errors ?? []) };
  };
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
