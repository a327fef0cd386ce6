// Start-up cost: validators are compiled lazily (host/src/tool/validation.ts); what the meta-schema
// cannot vouch for must still be refused when the tool is defined, not on its first call.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { defineTool } from '../../host/src/tool/index.js';
const ex = async () => ({});
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
test('validators compile on first use, yet a bad schema (unresolvable $ref, broken pattern, wrong type) is still refused at definition', () => {
  expect(() =>
    defineTool({
      name: 'a',
      description: 'd',
      execute: ex,
      inputSchema: { type: 'object', properties: { x: { $ref: '#/$defs/nope' } } },
    }),
  ).toThrow(/inputSchema/);
  expect(() =>
    defineTool({
      name: 'b',
      description: 'd',
      execute: ex,
      inputSchema: { type: 'object', properties: { x: { type: 'string', pattern: '(' } } },
    }),
  ).toThrow(/inputSchema/);
  expect(() =>
    defineTool({
      name: 'c',
      description: 'd',
      execute: ex,
      inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } },
    }),
  ).toThrow(/inputSchema/);
  const t = defineTool({
    name: 'e',
    description: 'd',
    execute: ex,
    parameters: { n: { type: 'integer', default: 3 } },
  });
  const t2 = defineTool({
    name: 'f',
    description: 'd',
    execute: ex,
    parameters: { n: { type: 'integer', default: 3 } },
  });
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
  const values: unknown[] = [
    0,
    -1,
    1.5,
    3,
    'x',
    '',
    true,
    false,
    null,
    [],
    ['a'],
    ['a', 'a'],
    ['string', 'number'],
    ['nope'],
    {},
    { a: 1 },
  ];
  const keys = [
    'type',
    'properties',
    'additionalProperties',
    'items',
    'required',
    'enum',
    'default',
    'const',
    'multipleOf',
    'title',
    'description',
    'format',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'minLength',
    'maxItems',
    'uniqueItems',
    'readOnly',
    'pattern',
    '$ref',
    'oneOf',
  ];
  const gen = (depth: number): unknown => {
    if (depth > 2 && rand(3) === 0) return rand(2) === 0;
    const s: Record<string, unknown> = {};
    const n = rand(4);
    for (let i = 0; i < n; i++) {
      const k = keys[rand(keys.length)] as string;
      if (k === 'type') s[k] = ['string', 'object', 'integer', 'bogus', ['string', 'null'], [], 5][rand(7)];
      else if (k === 'properties')
        s[k] = rand(4) === 0 ? values[rand(values.length)] : { a: gen(depth + 1), b: gen(depth + 1) };
      else if (k === 'additionalProperties' || k === 'items')
        s[k] = rand(3) === 0 ? values[rand(values.length)] : gen(depth + 1);
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
  const dsl = defineTool({
    name: 'g',
    description: 'd',
    execute: ex,
    parameters: { n: { type: 'integer', default: 3 }, s: { type: 'string', enum: ['a', 'b'] } },
  });
  expect(plainlyValid(dsl.inputSchema)).toBe(true);
  expect(plainlyValid({ type: 'object', properties: { x: { type: 'string', pattern: '^a' } } })).toBe(false);
});

test("a default the fast check vouches for is one ajv accepts (4000 random scalar defaults and schemas), and the examples' defaults are vouched for without ajv", async () => {
  const { plainlySatisfies } = await import('../../host/src/tool/validation.js');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false, logger: false });
  let seed = 777;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const scalars: unknown[] = [
    0,
    -0,
    1,
    -1,
    1.5,
    3,
    65536,
    1e21,
    '',
    'a',
    'ab',
    '𝄞',
    'é',
    '3',
    true,
    false,
    null,
    [],
    {},
  ];
  const pick = () => scalars[rand(scalars.length)];
  const gen = (): Record<string, unknown> => {
    const s: Record<string, unknown> = {};
    const n = rand(4);
    for (let i = 0; i < n; i++) {
      const k = [
        'type',
        'enum',
        'const',
        'minimum',
        'maximum',
        'exclusiveMinimum',
        'exclusiveMaximum',
        'minLength',
        'maxLength',
        'description',
        'format',
        'multipleOf',
      ][rand(12)] as string;
      if (k === 'type')
        s[k] = [
          'string',
          'integer',
          'number',
          'boolean',
          'null',
          'object',
          'array',
          ['string', 'null'],
          ['integer', 'boolean'],
        ][rand(9)];
      else if (k === 'enum') s[k] = [pick(), pick(), pick()].slice(0, rand(3) + 1);
      else if (k === 'minLength' || k === 'maxLength') s[k] = rand(3);
      else if (k === 'description' || k === 'format') s[k] = 'x';
      else if (k === 'const') s[k] = pick();
      else s[k] = [0, 1, 2, 1.5, -1][rand(5)];
    }
    return s;
  };
  let vouched = 0;
  for (let i = 0; i < 4000; i++) {
    const schema = gen();
    const value = pick();
    if (plainlySatisfies(schema, value)) {
      vouched += 1;
      expect(ajv.validate(schema, value), `${JSON.stringify(schema)} ${JSON.stringify(value)}`).toBe(true);
    }
  }
  expect(vouched).toBeGreaterThan(200);
  expect(plainlySatisfies({ type: 'string', enum: ['encode', 'decode'], description: 'd' }, 'encode')).toBe(true);
  expect(plainlySatisfies({ type: 'integer', description: 'd' }, 65536)).toBe(true);
  expect(plainlySatisfies({ type: 'boolean' }, false)).toBe(true);
  expect(plainlySatisfies({ type: 'integer' }, 1.5)).toBe(false);
  // a default it cannot vouch for still goes to ajv, which refuses it at definition
  expect(() =>
    defineTool({
      name: 'h',
      description: 'd',
      execute: ex,
      inputSchema: { type: 'object', properties: { n: { type: 'string', format: 'x', maxLength: 1, default: 'abc' } } },
    }),
  ).toThrow(/does not match its own schema/);
  expect(() =>
    defineTool({ name: 'i', description: 'd', execute: ex, parameters: { n: { type: 'integer', default: 1.5 } } }),
  ).toThrow(/does not match its own schema/);
});

test('defining tools with common parameters (defaults, and one named `pattern`) loads no ajv; their first check does', () => {
  // a fresh process on the built code: this one has ajv loaded by the tests above
  const probe = `
    import { createRequire } from 'node:module';
    import { defineTool } from './dist/tool/index.js';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('/ajv/'));
    const tool = defineTool({ name: 'grep', description: 'd', execute: async () => ({}), parameters: {
      pattern: { type: 'string', required: true }, path: { type: 'string', default: '/data' },
      max_results: { type: 'integer', default: 100 }, ignore_case: { type: 'boolean', default: false },
      direction: { type: 'string', enum: ['encode', 'decode'], default: 'encode' } },
      output: { schema: { type: 'object', properties: { matches: { type: 'array', items: { type: 'string' } } } } } });
    const atDefinition = loaded();
    const checked = tool.checkArguments({ pattern: 'x' });
    process.stdout.write(JSON.stringify({ atDefinition, checked, afterCheck: loaded() }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    }),
  );
  expect(out).toEqual({
    atDefinition: false,
    checked: {
      ok: true,
      args: { pattern: 'x', path: '/data', max_results: 100, ignore_case: false, direction: 'encode' },
    },
    afterCheck: true,
  });
});
