// The decision trail in a result's meta is a JSON copy taken at the end of the call. A plain walk
// with JSON.stringify's rules (measured ~4.6 µs per call for the parse(stringify()) round trip).
import { deepFreeze, type Json, type JsonObject } from '../tool/index.js';

/**
 * What JSON.parse(JSON.stringify(value)) gives for plain data: undefined, functions and symbols
 * are dropped from objects and become null in arrays; non-finite numbers become null. Anything
 * with a toJSON, or not a plain object or array, is handed to JSON itself. `freeze`: the copy is
 * frozen as it is made (it is fresh, so no second walk is needed to freeze it).
 */
export function jsonCopy(value: unknown, freeze = false): Json | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const out: Json[] = new Array<Json>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = jsonCopy(value[i], freeze) ?? null;
    if (freeze) Object.freeze(out);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const viaJson = JSON.parse(JSON.stringify(value)) as Json;
    return freeze ? deepFreeze(viaJson) : viaJson;
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = jsonCopy((value as Record<string, unknown>)[key], freeze);
    if (child === undefined) continue;
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
    else out[key] = child;
  }
  if (freeze) Object.freeze(out);
  return out;
}
