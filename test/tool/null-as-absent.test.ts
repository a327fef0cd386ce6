// `schema --strict` tells a model to send null for an optional property it leaves out; the tool
// model reads such a null as "not given" — but only where the schema plainly refuses null.
import { describe, expect, it } from 'vitest';
import { defineTool, type JsonObject } from '../../host/src/tool/index.js';

const tool = defineTool({
  name: 'nulls',
  description: 'd',
  execute: () => null,
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string' },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
      maybe: { type: ['string', 'null'] },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      nested: { type: 'object', properties: { depth: { type: 'integer', default: 3 } } },
      list: { type: 'array', items: { type: 'object', properties: { tag: { type: 'string' } } } },
    },
    required: ['text'],
  },
});

function accepted(args: JsonObject): JsonObject {
  const r = tool.checkArguments(args);
  if (!r.ok) throw new Error(r.message);
  return r.args;
}

describe('a null for an optional property means "not given"', () => {
  it('a null optional property is dropped and its default applies', () => {
    expect(accepted({ text: 'x', mode: null })).toEqual({ text: 'x', mode: 'a' });
  });

  it('nested objects and array items are read the same way', () => {
    expect(accepted({ text: 'x', nested: { depth: null }, list: [{ tag: null }, { tag: 't' }] })).toEqual({
      text: 'x',
      mode: 'a',
      nested: { depth: 3 },
      list: [{}, { tag: 't' }],
    });
  });

  it('a property whose schema admits null keeps the null', () => {
    expect(accepted({ text: 'x', maybe: null })).toEqual({ text: 'x', mode: 'a', maybe: null });
  });

  it('a required property that is null is still refused, naming it', () => {
    const r = tool.checkArguments({ text: null });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toContain('text');
  });

  it('a schema too complex to read (anyOf) is validated as given: null is refused', () => {
    const r = tool.checkArguments({ text: 'x', either: null });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toContain('either');
  });

  it("the caller's arguments are never changed", () => {
    const args = { text: 'x', mode: null };
    accepted(args);
    expect(args).toEqual({ text: 'x', mode: null });
  });
});
