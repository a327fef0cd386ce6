// Start-up cost: validators are compiled lazily (host/src/tool/validation.ts); what the meta-schema
// cannot vouch for must still be refused when the tool is defined, not on its first call.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { defineTool } from '../../host/src/tool/index.js';
const ex = async () => ({});
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A small seeded generator, so each random run is the same run. */
function seeded(start: number): (n: number) => number {
  let seed = start;
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}

/** Scalars and empty containers the random schema checks draw values from. */
const SCALARS: readonly unknown[] = [
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
  const rand = seeded(777);
  const scalars: unknown[] = [...SCALARS];
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

test('defining tools with common parameters (defaults, and one named `pattern`) loads no ajv, nor does a first check the plain check vouches for; a refused value loads it for its message', () => {
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
    const afterCheck = loaded();
    const refused = tool.checkArguments({ pattern: 'x', max_results: 'many' });
    process.stdout.write(JSON.stringify({ atDefinition, checked, afterCheck, refused, afterRefusal: loaded() }));`;
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
    afterCheck: false,
    refused: { ok: false, message: 'argument "max_results": must be integer' },
    afterRefusal: true,
  });
});

test('a value the plain object check vouches for is one ajv accepts, with the same defaults filled (6000 random object schemas and values, with and without defaults)', async () => {
  const { plainObjectCheck } = await import('../../host/src/tool/validation.js');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const common = { strict: false, allErrors: false, coerceTypes: false, logger: false } as const;
  const ajvs = {
    true: new Ajv2020({ ...common, useDefaults: true }),
    false: new Ajv2020({ ...common, useDefaults: false }),
  };
  const rand = seeded(4242);
  const scalars: unknown[] = [...SCALARS, [1], { a: 1 }];
  const pick = () => structuredClone(scalars[rand(scalars.length)]);
  const keys = ['a', 'b', 'c', 'toString', 'constructor'];
  const prop = (): Record<string, unknown> => {
    const s: Record<string, unknown> = {};
    const kinds = [
      'type',
      'enum',
      'const',
      'minimum',
      'maximum',
      'exclusiveMaximum',
      'minLength',
      'maxLength',
      'default',
      'format',
      'description',
    ];
    for (let i = rand(3); i > 0; i--) {
      const k = kinds[rand(kinds.length)] as string;
      if (k === 'type')
        s[k] = ['string', 'integer', 'number', 'boolean', 'null', 'object', ['string', 'null']][rand(7)];
      else if (k === 'enum') s[k] = [pick(), pick()].slice(0, rand(2) + 1);
      else if (k === 'const' || k === 'default') s[k] = pick();
      else if (k === 'minLength' || k === 'maxLength') s[k] = rand(3);
      else if (k === 'format' || k === 'description') s[k] = 'x';
      else s[k] = [0, 1, 2, 1.5, -1][rand(5)];
    }
    return s;
  };
  const schemaOf = (): Record<string, unknown> => {
    const properties: Record<string, unknown> = {};
    for (let i = rand(4); i > 0; i--) properties[keys[rand(3)] as string] = prop();
    if (rand(20) === 0) properties[keys[3 + rand(2)] as string] = prop();
    const schema: Record<string, unknown> = { type: 'object', properties };
    const named = Object.keys(properties);
    if (rand(2) === 0 && named.length > 0) schema.required = [...new Set([named[rand(named.length)], keys[rand(3)]])];
    if (rand(3) > 0) schema.additionalProperties = rand(3) === 0;
    if (rand(15) === 0) schema.minProperties = 1;
    return schema;
  };
  // mostly values shaped after the schema (so many pass), with random keys and values beside
  const ofType: Record<string, unknown[]> = {
    string: ['', 'a', 'ab', '𝄞'],
    integer: [0, 1, 3, -1],
    number: [1.5, 0, 2],
    boolean: [true, false],
    null: [null],
  };
  const fitting = (sub: Record<string, unknown>): unknown => {
    if (Array.isArray(sub.enum) && rand(4) > 0) return structuredClone(sub.enum[rand(sub.enum.length)]);
    if ('const' in sub && rand(4) > 0) return structuredClone(sub.const);
    const type = Array.isArray(sub.type) ? sub.type[rand(sub.type.length)] : sub.type;
    const pool = typeof type === 'string' ? ofType[type] : undefined;
    return pool !== undefined && rand(4) > 0 ? pool[rand(pool.length)] : pick();
  };
  const valueOf = (schema: Record<string, unknown>): unknown => {
    if (rand(25) === 0) return pick();
    const v: Record<string, unknown> = {};
    for (const [k, sub] of Object.entries(schema.properties as Record<string, Record<string, unknown>>))
      if (rand(5) > 0) v[k] = fitting(sub);
    if (rand(5) === 0) v[['a', 'b', 'c', 'd'][rand(4)] as string] = pick();
    return v;
  };
  let vouched = 0;
  let refused = 0;
  for (let i = 0; i < 6000; i++) {
    const schema = schemaOf();
    const defaults = rand(2) === 0;
    const check = plainObjectCheck(schema, defaults);
    const value = valueOf(schema);
    if (check === undefined) continue;
    const mine = structuredClone(value) as never;
    const theirs = structuredClone(value);
    const validate = ajvs[`${defaults}`].compile(schema);
    const accepted = validate(theirs);
    if (!accepted) refused += 1;
    if (check(mine)) {
      vouched += 1;
      const what = `${JSON.stringify(schema)} ${JSON.stringify(value)} defaults=${defaults}`;
      expect(accepted, what).toBe(true);
      expect(mine, what).toEqual(theirs);
    }
  }
  // many vouched for, and many values ajv refuses among those the check decided on
  expect(vouched).toBeGreaterThan(1500);
  expect(refused).toBeGreaterThan(300);
  // the examples' shape is vouched for; what it cannot decide is left to ajv
  const shape = {
    type: 'object',
    properties: { value: { type: 'number' }, to: { type: 'string', description: 'd' } },
    required: ['value', 'to'],
    additionalProperties: false,
  };
  expect(plainObjectCheck(shape, true)?.({ value: 1, to: 'mi' })).toBe(true);
  expect(plainObjectCheck(shape, true)?.({ value: 1 })).toBe(false);
  expect(plainObjectCheck(shape, true)?.({ value: 1, to: 'mi', x: 1 })).toBe(false);
  expect(plainObjectCheck({ ...shape, properties: { toString: { type: 'string' } } }, true)).toBeUndefined();
  expect(plainObjectCheck({ ...shape, properties: { v: { type: 'string', pattern: '^a' } } }, true)).toBeUndefined();
  expect(plainObjectCheck({ ...shape, additionalProperties: { type: 'string' } }, true)).toBeUndefined();
});
