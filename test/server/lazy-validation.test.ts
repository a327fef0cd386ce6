// Start-up cost: validators are compiled lazily (host/src/tool/validation.ts); what the meta-schema
// cannot vouch for must still be refused when the tool is defined, not on its first call.
import { expect, test } from 'vitest';
import { defineTool } from '../../host/src/tool/index.js';
const ex = async () => ({});
test('validators compile on first use, yet a bad schema (unresolvable $ref, broken pattern, wrong type) is still refused at definition', () => {
  expect(() => defineTool({ name: 'a', description: 'd', execute: ex, inputSchema: { type: 'object', properties: { x: { $ref: '#/$defs/nope' } } } })).toThrow(/inputSchema/);
  expect(() => defineTool({ name: 'b', description: 'd', execute: ex, inputSchema: { type: 'object', properties: { x: { type: 'string', pattern: '(' } } } })).toThrow(/inputSchema/);
  expect(() => defineTool({ name: 'c', description: 'd', execute: ex, inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } })).toThrow(/inputSchema/);
  const t = defineTool({ name: 'e', description: 'd', execute: ex, parameters: { n: { type: 'integer', default: 3 } } });
  const t2 = defineTool({ name: 'f', description: 'd', execute: ex, parameters: { n: { type: 'integer', default: 3 } } });
  expect(t.checkArguments({})).toEqual({ ok: true, args: { n: 3 } });
  expect(t2.checkArguments({ n: 'x' }).ok).toBe(false);
});

test('the fast schema check never vouches for a schema the draft 2020-12 meta-schema refuses (2000 random schemas), and does vouch for the common ones', async () => {
  const { plainlyValid } = await import('../../host/src/tool/validation.js');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const meta = new Ajv2020({ strict: false });
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const values: unknown[] = [0, -1, 1.5, 3, 'x', '', true, false, null, [], ['a'], ['a', 'a'], ['string', 'number'], ['nope'], {}, { a: 1 }];
  const keys = ['type', 'properties', 'additionalProperties', 'items', 'required', 'enum', 'default', 'const', 'multipleOf', 'title', 'description',
    'format', 'minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'maxItems', 'uniqueItems', 'readOnly', 'pattern', '$ref', 'oneOf'];
  const gen = (depth: number): unknown => {
    if (depth > 2 && rand(3) === 0) return rand(2) === 0;
    const s: Record<string, unknown> = {};
    const n = rand(4);
    for (let i = 0; i < n; i++) {
      const k = keys[rand(keys.length)] as string;
      if (k === 'type') s[k] = ['string', 'object', 'integer', 'bogus', ['string', 'null'], [], 5][rand(7)];
      else if (k === 'properties') s[k] = rand(4) === 0 ? values[rand(values.length)] : { a: gen(depth + 1), b: gen(depth + 1) };
      else if (k === 'additionalProperties' || k === 'items') s[k] = rand(3) === 0 ? values[rand(values.length)] : gen(depth + 1);
      else s[k] = values[rand(values.length)];
    }
    return s;
  };
  let vouched = 0;
  for (let i = 0; i < 2000; i++) {
    const schema = gen(0);
    if (plainlyValid(schema)) {
      vouched += 1;
      expect(meta.validateSchema(schema as object), JSON.stringify(schema)).toBe(true);
    }
  }
  expect(vouched).toBeGreaterThan(100); // the generator does reach the fast path
  const dsl = defineTool({ name: 'g', description: 'd', execute: ex, parameters: { n: { type: 'integer', default: 3 }, s: { type: 'string', enum: ['a', 'b'] } } });
  expect(plainlyValid(dsl.inputSchema)).toBe(true);
  expect(plainlyValid({ type: 'object', properties: { x: { type: 'string', pattern: '^a' } } })).toBe(false);
});
