// Walks every string inside a JSON value (any depth), with the key path that leads to it, so rules
// on argument values cannot be dodged by nesting a value in an object or an array.
import type { Json } from '../tool/index.js';

export interface StringAt {
  path: string;
  value: string;
}

/** The strings of an argument value; `complete` is false when there were more than the cap. */
export type StringsFound = StringAt[] & { complete: boolean };

/** Strings a red line reads of one call; past it the guard refuses rather than check a part. */
export const MAX_STRINGS = 10_000;

/**
 * Every string in a JSON value, object keys included (a tool may well read a path or URL from a
 * key), each with the key path that leads to it. Past MAX_STRINGS it stops and says so: a guard
 * must refuse then, or one bad value after 10,000 harmless ones would pass unseen.
 */
export function stringsIn(value: Json | Readonly<Record<string, Json>>, base = ''): StringsFound {
  const out = Object.assign([] as StringAt[], { complete: true });
  const push = (path: string, v: string): void => {
    if (out.length >= MAX_STRINGS) out.complete = false;
    else out.push({ path: path === '' ? '(value)' : path, value: v });
  };
  const walk = (v: unknown, path: string): void => {
    if (!out.complete) return;
    if (typeof v === 'string') push(path, v);
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        const at = path === '' ? k : `${path}.${k}`;
        push(`${at} (key)`, k);
        walk(item, at);
      }
    }
  };
  walk(value, base);
  return out;
}

/** The refusal a red line gives when the arguments hold more strings than it reads. */
export function tooManyStrings(guard: string): string {
  return `the arguments hold more than ${MAX_STRINGS} strings (object keys included); ${guard} cannot check them all`;
}

/**
 * A copy of `value` with every string passed through `fn`, object keys included: a secret used as a
 * key is as visible as one used as a value. Two keys that come out the same are kept apart with a
 * `#2`, `#3` suffix rather than one overwriting the other. `changed` says whether anything moved.
 */
export function mapStrings(value: Json, fn: (s: string) => string): { value: Json; changed: boolean } {
  let changed = false;
  const walk = (v: Json): Json => {
    if (typeof v === 'string') {
      const next = fn(v);
      if (next !== v) changed = true;
      return next;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const o: Record<string, Json> = {};
      for (const [k, item] of Object.entries(v)) {
        let key = fn(k);
        if (key !== k) {
          changed = true;
          for (let n = 2; Object.hasOwn(o, key) || (key !== k && Object.hasOwn(v, key)); n++) key = `${fn(k)}#${n}`;
        }
        // defineProperty: a key such as __proto__ stays a plain own key of the copy.
        Object.defineProperty(o, key, { value: walk(item), enumerable: true, writable: true, configurable: true });
      }
      return o;
    }
    return v;
  };
  const mapped = walk(value);
  return { value: mapped, changed };
}
