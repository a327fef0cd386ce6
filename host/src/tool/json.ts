// Small JSON helpers shared by the tool model and the pipeline.
import type { Json, JsonObject } from './types.js';

/** True when `value` is plain JSON (no functions, undefined, NaN, cycles, class instances). */
export function isJson(value: unknown, ancestors?: Set<object>): value is Json {
  if (typeof value !== 'object' || value === null) return isJsonLeaf(value);
  if (ancestors?.has(value)) return false;
  // The set of objects on the path (a cycle comes back to one) is made only once a child is an
  // object: a flat value, most arguments and results, is walked with no allocation.
  const walk = { value, path: ancestors, onPath: false };
  try {
    if (Array.isArray(value)) {
      // holes are skipped, as every() does
      for (let i = 0; i < value.length; i++) if (i in value && !childIsJson(walk, value[i])) return false;
      return true;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    const obj = value as Record<string, unknown>;
    for (const k in obj) if (Object.hasOwn(obj, k) && !childIsJson(walk, obj[k])) return false;
    return true;
  } finally {
    if (walk.onPath) walk.path?.delete(value);
  }
}

interface JsonWalk {
  readonly value: object;
  path: Set<object> | undefined;
  onPath: boolean;
}

function childIsJson(walk: JsonWalk, child: unknown): boolean {
  if (typeof child !== 'object' || child === null) return isJsonLeaf(child);
  if (!walk.onPath) {
    walk.path ??= new Set();
    walk.path.add(walk.value);
    walk.onPath = true;
  }
  return isJson(child, walk.path);
}

function isJsonLeaf(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return value === null;
  }
}

/** How large a call's arguments may be before anything walks them (validation, copies, policies). */
export const ARGUMENT_LIMITS = { keysPerObject: 10_000, values: 200_000, depth: 64 } as const;

/**
 * Why `value` is too large to check, or undefined. Stops as soon as a limit is passed, so a body
 * of 400,000 keys costs one key count, not a walk (and an error) per key; every later step (the
 * JSON check, the copy, the schema, the policies) then walks a bounded value.
 */
export function argumentSizeProblem(
  value: unknown,
  limits: typeof ARGUMENT_LIMITS = ARGUMENT_LIMITS,
): string | undefined {
  let values = 0;
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (++values > limits.values) return `arguments: more than ${limits.values} values in all`;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limits.depth) return `arguments: nested more than ${limits.depth} levels deep`;
    if (Array.isArray(v)) {
      if (v.length > limits.values) return `arguments: more than ${limits.values} values in all`;
      for (const x of v) stack.push({ v: x, depth: depth + 1 });
      continue;
    }
    let keys = 0;
    for (const k in v) {
      if (++keys > limits.keysPerObject) return `arguments: an object with more than ${limits.keysPerObject} keys`;
      if (Object.hasOwn(v, k)) stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1 });
    }
  }
  return undefined;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value: the copy shares nothing with the original, frozen or not. A plain
 * walk (measured ~7 µs per call for structuredClone on a small result, well under 1 µs this way).
 */
export function cloneJson<T extends Json>(value: T): T {
  return copyJson(value) as T;
}

function copyJson(value: Json): Json {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: Json[] = new Array<Json>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i] as Json);
    return out;
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = copyJson(value[key] as Json);
    // an own "__proto__" key must stay a key, not become the copy's prototype
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
    else out[key] = child;
  }
  return out;
}

/**
 * A deep copy of a JSON value, frozen as it is made: cloneJson then deepFreeze in one walk (the copy
 * is fresh, so there is nothing already frozen to look for; docs/decisions.md, "Server CPU per
 * call, seventh round").
 */
export function frozenJsonCopy<T extends Json>(value: T): T {
  return frozenCopy(value) as T;
}

function frozenCopy(value: Json): Json {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: Json[] = new Array<Json>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = frozenCopy(value[i] as Json);
    return Object.freeze(out) as Json;
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = frozenCopy(value[key] as Json);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
    else out[key] = child;
  }
  return Object.freeze(out);
}

/** Values the host itself made, checked as JSON and froze deeply, and shares with no one (sealJson). */
const sealed = new WeakSet<object>();

/**
 * Marks a value the host has just made (a module's output parsed from its bytes) as checked JSON,
 * deeply frozen and held by nobody else: the pipeline then freezes and checks nothing again and
 * needs no copy (a body's own value may still be held and changed by the body, so it is copied).
 * The caller has checked it with isJson: only the host's own fresh values come here.
 */
export function sealJson<T extends Json>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  deepFreeze(value);
  sealed.add(value);
  return value;
}

/** True for a value sealJson marked: checked, deeply frozen, owned. */
export function isSealedJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && sealed.has(value);
}

/** Freezes a JSON value and everything inside it, so no listener can change what the body sees. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // A key loop, not Object.values: no array is made per object (this runs several times a call);
  // it visits the same own enumerable keys, and skips an array's holes as Object.values does.
  const obj = value as Record<string, unknown>;
  for (const k in obj) if (Object.hasOwn(obj, k)) deepFreeze(obj[k]);
  return value;
}

/** `items[2].name` from path segments; keys that are not identifiers are quoted. */
export function formatPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
