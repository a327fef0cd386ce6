import { describe, expect, it } from 'vitest';
import { defineTool, ToolDefinitionError, type ToolDefinition } from '../../host/src/tool/index.js';

const base = { description: 'd', execute: () => null } as const;

function refusal(def: unknown): ToolDefinitionError {
  try {
    defineTool(def as ToolDefinition);
  } catch (err) {
    if (err instanceof ToolDefinitionError) return err;
    throw err;
  }
  throw new Error('definition was accepted');
}

describe('tool model: defineTool', () => {
  it('the parameter DSL compiles to JSON Schema with types, items, properties, enum, default, description and required', () => {
    const tool = defineTool({
      ...base,
      name: 'dsl',
      parameters: {
        q: { type: 'string', required: true, description: 'query' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        limit: { type: 'integer' },
        ratio: { type: 'number' },
        on: { type: 'boolean' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', required: true } } } },
      },
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'query' },
        mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
        limit: { type: 'integer' },
        ratio: { type: 'number' },
        on: { type: 'boolean' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      required: ['q'],
      additionalProperties: false,
    });
    expect(Object.isFrozen(tool.inputSchema)).toBe(true);
  });

  it('a raw inputSchema is accepted and closed at the top level unless unknown arguments are allowed', () => {
    const closed = defineTool({
      ...base,
      name: 'raw',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(closed.checkArguments({ a: 'x' })).toEqual({ ok: true, args: { a: 'x' } });
    expect(closed.checkArguments({ a: 'x', b: 1 })).toEqual({
      ok: false,
      message: 'argument "b": is not allowed (unknown key)',
    });
    const open = defineTool({
      ...base,
      name: 'raw2',
      allowUnknownArguments: true,
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(open.checkArguments({ a: 'x', b: 1 }).ok).toBe(true);
  });

  it('a missing required key is refused with the field and the rule', () => {
    const tool = defineTool({ ...base, name: 'req', parameters: { text: { type: 'string', required: true } } });
    expect(tool.checkArguments({})).toEqual({ ok: false, message: 'argument "text": is required' });
  });

  it('a wrong type deep inside an array names the full path and the rule', () => {
    const tool = defineTool({
      ...base,
      name: 'deep',
      parameters: { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } },
    });
    const r = tool.checkArguments({ items: [{ name: 'a' }, { name: 'b' }, { name: 7 }] });
    expect(r).toEqual({ ok: false, message: 'argument "items[2].name": must be string' });
  });

  it('an enum miss lists the allowed values', () => {
    const tool = defineTool({ ...base, name: 'en', parameters: { mode: { type: 'string', enum: ['fast', 'slow'] } } });
    expect(tool.checkArguments({ mode: 'medium' })).toEqual({
      ok: false,
      message: 'argument "mode": must be one of "fast", "slow"',
    });
  });

  it('unknown keys are refused, also in nested objects, unless the tool allows unknown arguments', () => {
    const params = { o: { type: 'object', properties: { a: { type: 'string' } } } } as const;
    const strict = defineTool({ ...base, name: 'st', parameters: params });
    expect(strict.checkArguments({ o: { a: 'x', z: 1 } })).toEqual({
      ok: false,
      message: 'argument "o.z": is not allowed (unknown key)',
    });
    expect(strict.checkArguments({ extra: true })).toEqual({
      ok: false,
      message: 'argument "extra": is not allowed (unknown key)',
    });
    const lax = defineTool({ ...base, name: 'lx', parameters: params, allowUnknownArguments: true });
    expect(lax.checkArguments({ o: { a: 'x', z: 1 }, extra: true }).ok).toBe(true);
  });

  it('validation never coerces: "3" is not an integer and 1 is not a string', () => {
    const tool = defineTool({ ...base, name: 'nc', parameters: { n: { type: 'integer' }, s: { type: 'string' } } });
    expect(tool.checkArguments({ n: '3' })).toEqual({ ok: false, message: 'argument "n": must be integer' });
    expect(tool.checkArguments({ s: 1 })).toEqual({ ok: false, message: 'argument "s": must be string' });
    expect(tool.checkArguments([1])).toEqual({ ok: false, message: 'arguments: must be a JSON object' });
  });

  it("defaults are filled into a copy before freezing, and the caller's object is left untouched", () => {
    const tool = defineTool({
      ...base,
      name: 'df',
      parameters: { mode: { type: 'string', default: 'fast' }, q: { type: 'string' } },
    });
    const given = { q: 'x' };
    expect(tool.checkArguments(given)).toEqual({ ok: true, args: { q: 'x', mode: 'fast' } });
    expect(given).toEqual({ q: 'x' });
  });

  it('a bad tool name is refused naming the tool and the field', () => {
    for (const name of ['Bad', '1abc', 'has-dash', '', 'a'.repeat(65)]) {
      const err = refusal({ ...base, name });
      expect(err.field).toBe('name');
      expect(err.message).toContain(`tool "${name}": name: must match ^[a-z][a-z0-9_]{0,63}$`);
    }
    expect(() => defineTool({ ...base, name: 'a'.repeat(64) })).not.toThrow();
  });

  it('a bad parameter spec is refused naming the tool and the field path', () => {
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'date' } } }).message).toBe(
      'tool "t": parameters.x.type: must be one of string, number, integer, boolean, array, object',
    );
    expect(
      refusal({ ...base, name: 't', parameters: { x: { type: 'string', items: { type: 'string' } } } }).field,
    ).toBe('parameters.x.items');
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'string', requird: true } } }).field).toBe(
      'parameters.x.requird',
    );
    expect(
      refusal({
        ...base,
        name: 't',
        parameters: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'strin' } } } } },
      }).field,
    ).toBe('parameters.a.items.properties.b.type');
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'string', enum: [] } } }).field).toBe(
      'parameters.x.enum',
    );
  });

  it('a default that is not JSON, or not of its own type, is refused naming the field', () => {
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'number', default: Number.NaN } } }).field).toBe(
      'parameters.x.default',
    );
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'string', default: () => 1 } } }).field).toBe(
      'parameters.x.default',
    );
    expect(refusal({ ...base, name: 't', parameters: { x: { type: 'string', default: new Date(0) } } }).field).toBe(
      'parameters.x.default',
    );
    const wrongType = refusal({ ...base, name: 't', parameters: { x: { type: 'integer', default: 'ten' } } });
    expect(wrongType.field).toBe('parameters.x.default');
    expect(wrongType.message).toContain('does not match its own schema');
    expect(
      refusal({ ...base, name: 't', parameters: { x: { type: 'string', enum: ['a'], default: 'b' } } }).field,
    ).toBe('parameters.x.default');
  });

  it('other bad fields are refused naming the field: both parameters and inputSchema, a non-object schema, a bad render, a bad timeout', () => {
    expect(refusal({ ...base, name: 't', parameters: {}, inputSchema: { type: 'object' } }).field).toBe('inputSchema');
    expect(refusal({ ...base, name: 't', inputSchema: { type: 'string' } }).field).toBe('inputSchema.type');
    expect(refusal({ ...base, name: 't', output: { render: 'html' } }).field).toBe('output.render');
    expect(refusal({ ...base, name: 't', output: { schema: { type: 'nonsense' } } }).field).toBe('output.schema');
    expect(refusal({ ...base, name: 't', timeoutMs: -1 }).field).toBe('timeoutMs');
    expect(refusal({ name: 't', description: '', execute: () => null }).field).toBe('description');
    expect(refusal({ name: 't', description: 'd' }).field).toBe('execute');
  });
});

describe('validation work per call is bounded', () => {
  it('400,000 unknown keys are refused before anything walks them, in a fraction of the time listing each would take', () => {
    const tool = defineTool({ ...base, name: 'bounded', parameters: { a: { type: 'string' } } });
    const hostile: Record<string, number> = { a: 0 };
    for (let i = 0; i < 400_000; i++) hostile[`k${i}`] = i;
    tool.checkArguments({ a: 'warm' });
    const t0 = performance.now();
    const r = tool.checkArguments(hostile);
    const ms = performance.now() - t0;
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toBe('arguments: an object with more than 10000 keys');
    // copying, checking and listing every key's error took 2.7-3.5 s on this machine
    expect(ms).toBeLessThan(400);
  });

  it('arguments nested deeper than 64 levels, or of more than 200,000 values, are refused by their size', () => {
    const tool = defineTool({
      ...base,
      name: 'deep_args',
      inputSchema: { type: 'object', additionalProperties: true },
    });
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100; i++) deep = (deep['d'] = {}) as Record<string, unknown>;
    expect(tool.checkArguments(root)).toEqual({ ok: false, message: 'arguments: nested more than 64 levels deep' });
    const many = { list: Array.from({ length: 300_000 }, () => 1) };
    expect(tool.checkArguments(many)).toEqual({ ok: false, message: 'arguments: more than 200000 values in all' });
    expect(tool.checkArguments({ list: Array.from({ length: 1000 }, () => 1) }).ok).toBe(true);
  });

  it("a first error stops a large value's check: 5,000 wrong values are not each reported", () => {
    const tool = defineTool({
      ...base,
      name: 'first_err',
      parameters: { xs: { type: 'array', items: { type: 'integer' } } },
    });
    const r = tool.checkArguments({ xs: Array.from({ length: 5000 }, () => 'x') });
    expect(r).toEqual({ ok: false, message: 'argument "xs[0]": must be integer' });
  });

  it('a small value still gets every error (up to five lines), not only the first', () => {
    const tool = defineTool({ ...base, name: 'fuller', parameters: { a: { type: 'string' }, b: { type: 'integer' } } });
    expect(tool.checkArguments({ a: 1, b: 'x' })).toEqual({
      ok: false,
      message: 'argument "a": must be string; argument "b": must be integer',
    });
  });
});
