// Checks that a raw JSON Schema (inputSchema, output.schema) is itself valid against the draft
// 2020-12 meta-schema, so a broken schema fails at load instead of on the first call.
import { Ajv2020 } from 'ajv/dist/2020.js';

// One instance, used only for meta-validation (validateSchema compiles nothing), built on first
// use: compiling the meta-schema costs ~30 ms, which commands that load no manifest never pay.
let ajv: Ajv2020 | undefined;

/** Returns undefined when valid, or the rule broken (e.g. `/type must be equal to one of the allowed values`). */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  ajv ??= new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const ok = ajv.validateSchema(schema as object);
  if (ok === true) return undefined;
  const first = ajv.errors?.[0];
  if (first === undefined) return 'is not a valid JSON Schema';
  const where = first.instancePath === '' ? '' : `${first.instancePath} `;
  return `is not a valid JSON Schema: ${where}${first.message ?? 'is invalid'}`;
}
