// OpenAI's strict mode (`schema --strict`) makes every optional property required but nullable,
// so a model that leaves one out sends `null`. Such a null means "not given": it is removed
// before validation, so the property's default applies as if the caller had omitted it. Only
// where the schema says plainly that null is not a value the tool takes; a property that admits
// null, or whose schema is too complex to tell (anyOf, $ref...), keeps it and is validated as is.
import { isJsonObject } from './json.js';
import type { Json, JsonObject } from './types.js';

/** True when `schema` plainly refuses null: a `type` without 'null', or an enum/const without it. */
function refusesNull(schema: Json | undefined): boolean {
  if (!isJsonObject(schema)) return false;
  const type = schema['type'];
  if (typeof type === 'string') return type !== 'null';
  if (Array.isArray(type)) return !type.includes('null');
  if (Array.isArray(schema['enum'])) return !schema['enum'].includes(null);
  if ('const' in schema) return schema['const'] !== null;
  return false;
}

/** Removes, in place, the nulls `value` holds for optional properties of `schema` that refuse null. */
export function dropNullsForOptional(value: Json, schema: Json | undefined, depth = 0): void {
  if (!isJsonObject(schema) || depth > 64) return;
  if (Array.isArray(value)) {
    const items = schema['items'];
    for (const item of value) dropNullsForOptional(item, items, depth + 1);
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = schema['properties'];
  if (!isJsonObject(properties)) return;
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  for (const [key, v] of Object.entries(value as JsonObject)) {
    if (!Object.hasOwn(properties, key)) continue;
    const sub = properties[key];
    if (v === null) {
      if (!required.includes(key) && refusesNull(sub)) delete (value as JsonObject)[key];
    } else {
      dropNullsForOptional(v, sub, depth + 1);
    }
  }
}
