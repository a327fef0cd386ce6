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
