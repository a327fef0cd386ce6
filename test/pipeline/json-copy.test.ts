import { describe, expect, it } from 'vitest';
import { jsonCopy } from '../../host/src/pipeline/json-copy.js';
import { harness, recordingTool } from './helpers.js';

describe('pipeline: the decision trail copied into meta', () => {
  it("meta.decision is exactly the trail's JSON round trip, and shares nothing with the observers' trail", async () => {
    const h = harness();
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'planner', (_e, next) => next());
    h.hooks.on('tools/pre-execute', 'allow_all', () => ({ kind: 'allow', reason: 'test' }));
    let seenTrail: unknown;
    h.hooks.on('tools/result', 'audit', (_r, rec) => {
      seenTrail = rec.trail;
    });
    const r = await h.pipeline.call('rec', { path: 'a' });
    expect(r.isError).toBe(false);
    expect(r.meta?.decision).toEqual(JSON.parse(JSON.stringify(seenTrail)));
    expect(r.meta?.decision).not.toBe(seenTrail);
  });

  it('the copy follows JSON.stringify: undefined dropped from objects, null in arrays, non-finite numbers null, own __proto__ kept as a key', () => {
    const src = JSON.parse('{"__proto__":{"x":1},"a":[1,null,"s"]}') as Record<string, unknown>;
    src.u = undefined;
    src.f = () => 1;
    src.n = Number.NaN;
    (src.a as unknown[]).push(undefined, Infinity, { d: new Date(0) });
    const copy = jsonCopy(src);
    expect(copy).toEqual(JSON.parse(JSON.stringify(src)));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy as object)).toEqual(['__proto__', 'a', 'n']);
  });
});
