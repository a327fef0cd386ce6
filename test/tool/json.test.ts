import { describe, expect, it } from 'vitest';
import {
  cloneJson,
  deepFreeze,
  frozenJsonCopy,
  isJson,
  isSealedJson,
  sealJson,
  type Json,
} from '../../host/src/tool/index.js';

describe('tool model: cloneJson', () => {
  it('a clone equals its original and shares no object or array with it, even when the original is frozen', () => {
    const original = deepFreeze({ a: [1, { b: 'x' }, [true, null]], c: { d: { e: 2.5 } } }) as Json;
    const copy = cloneJson(original) as { a: [number, { b: string }, unknown[]]; c: { d: object } };
    expect(copy).toEqual(original);
    const o = original as unknown as typeof copy;
    expect(copy).not.toBe(o);
    expect(copy.a).not.toBe(o.a);
    expect(copy.a[1]).not.toBe(o.a[1]);
    expect(copy.a[2]).not.toBe(o.a[2]);
    expect(copy.c.d).not.toBe(o.c.d);
    expect(Object.isFrozen(copy)).toBe(false);
    copy.a[1].b = 'changed';
    expect((o.a[1] as { b: string }).b).toBe('x');
  });

  it('an own "__proto__" key stays a key of the clone and never becomes its prototype', () => {
    const original = JSON.parse('{"__proto__":{"polluted":true},"k":1}') as Json;
    const copy = cloneJson(original) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'k']);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(original));
  });
});

describe('tool model: isJson', () => {
  it('refuses a cycle at any depth and accepts an object shared twice without a cycle', () => {
    const flat: Record<string, unknown> = { a: 1 };
    flat.self = flat;
    expect(isJson(flat)).toBe(false);
    const deep: { a: { b: unknown[] } } = { a: { b: [] } };
    deep.a.b.push({ back: deep.a });
    expect(isJson(deep)).toBe(false);
    const shared = { x: 1 };
    expect(isJson({ p: shared, q: [shared, shared] })).toBe(true);
  });

  it('refuses what JSON cannot carry and accepts what it can, at the top and nested', () => {
    for (const bad of [undefined, NaN, Infinity, () => 1, Symbol('s'), 1n, new Date(0), new Map()]) {
      expect(isJson(bad)).toBe(false);
      expect(isJson({ k: bad })).toBe(false);
      expect(isJson([1, [bad]])).toBe(false);
    }
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = [null, 'x', true, -0.5];
    expect(isJson(bare)).toBe(true);
    // holes are skipped as before; an array's non-index property is not part of its JSON
    const holey: number[] = [1];
    holey[2] = 3;
    expect(isJson(holey)).toBe(true);
    expect(isJson(Object.assign([1], { extra: () => 1 }))).toBe(true);
  });
});

describe('tool model: frozenJsonCopy', () => {
  it('a frozen copy is frozen at every level and shares nothing with its original', () => {
    const original = { a: [1, { b: 'x' }, [true, null]], c: { d: { e: 2.5 } } };
    const copy = frozenJsonCopy(original as Json) as typeof original;
    expect(copy).toEqual(original);
    for (const node of [copy, copy.a, copy.a[1], copy.a[2], copy.c, copy.c.d]) expect(Object.isFrozen(node)).toBe(true);
    expect(copy.a[1]).not.toBe(original.a[1]);
    (original.a[1] as { b: string }).b = 'changed';
    expect((copy.a[1] as { b: string }).b).toBe('x');
    expect(Object.isFrozen(original)).toBe(false);
  });

  it('an own "__proto__" key stays a key of the frozen copy', () => {
    const copy = frozenJsonCopy(JSON.parse('{"__proto__":{"polluted":true}}') as Json) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });
});

describe('tool model: sealJson', () => {
  it('a sealed value is frozen at every level and known as sealed; a look-alike is not', () => {
    const value = sealJson(JSON.parse('{"a":{"b":[1,{"c":2}]}}') as Json) as { a: { b: [number, object] } };
    expect(isSealedJson(value)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(isSealedJson(deepFreeze({ a: { b: [1, { c: 2 }] } }))).toBe(false);
    expect(isSealedJson(value.a)).toBe(false);
    expect(sealJson('text')).toBe('text');
  });
});
