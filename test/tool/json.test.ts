import { describe, expect, it } from 'vitest';
import { cloneJson, deepFreeze, type Json } from '../../host/src/tool/index.js';

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
