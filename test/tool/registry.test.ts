import { describe, expect, it } from 'vitest';
import {
  defineTool,
  modelView,
  ToolDefinitionError,
  ToolRegistry,
  type ToolChange,
  type ToolDefinition,
} from '../../host/src/tool/index.js';

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  parameters: { q: { type: 'string', required: true } },
  execute: () => null,
  ...extra,
});

describe('tool model: registry', () => {
  it("register returns a disposer that unregisters and awaits the tool's dispose()", async () => {
    const reg = new ToolRegistry();
    const order: string[] = [];
    const off = reg.register(
      tool('a', {
        dispose: async () => {
          await new Promise((r) => setTimeout(r, 10));
          order.push('disposed');
        },
      }),
    );
    expect(reg.get('a')?.name).toBe('a');
    await off();
    order.push('after');
    expect(order).toEqual(['disposed', 'after']);
    expect(reg.get('a')).toBeUndefined();
    await off(); // twice is harmless
    expect(order).toEqual(['disposed', 'after']);
  });

  it('a duplicate name throws naming the tool and leaves the first registration in place', () => {
    const reg = new ToolRegistry();
    reg.register(tool('dup', { description: 'first' }));
    expect(() => reg.register(tool('dup', { description: 'second' }))).toThrow(
      new ToolDefinitionError('dup', 'name', 'a tool with this name is already registered'),
    );
    expect(reg.get('dup')?.definition.description).toBe('first');
    expect(reg.list()).toHaveLength(1);
  });

  it('a refused definition leaves no partial registration and emits no change', () => {
    const reg = new ToolRegistry();
    const changes: ToolChange[] = [];
    reg.subscribe((c) => changes.push(c));
    expect(() => reg.register(tool('bad', { parameters: { q: { type: 'string', default: 5 } } }))).toThrow(
      /tool "bad": parameters\.q\.default/,
    );
    expect(reg.get('bad')).toBeUndefined();
    expect(reg.list()).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('subscribers hear added and removed in order, and unsubscribing stops them', async () => {
    const reg = new ToolRegistry();
    const changes: ToolChange[] = [];
    const unsubscribe = reg.subscribe((c) => changes.push(c));
    const offA = reg.register(tool('a'));
    reg.register(tool('b'));
    await offA();
    unsubscribe();
    reg.register(tool('c'));
    expect(changes).toEqual([
      { kind: 'added', name: 'a' },
      { kind: 'added', name: 'b' },
      { kind: 'removed', name: 'a' },
    ]);
    expect(reg.list().map((t) => t.name)).toEqual(['b', 'c']);
  });

  it('a failing dispose() is reported to onError, never thrown', async () => {
    const errors: string[] = [];
    const reg = new ToolRegistry({ onError: (_e, ctx) => errors.push(ctx) });
    const off = reg.register(tool('x', { dispose: () => Promise.reject(new Error('pool stuck')) }));
    await expect(off()).resolves.toBeUndefined();
    expect(errors).toEqual(['tool "x" dispose() failed']);
  });
});

describe('tool model: model-visible projection', () => {
  const def = tool('p', {
    title: 'P tool',
    annotations: { readOnlyHint: true },
    output: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
    capabilities: { allowedHosts: ['secret.internal'], allowedPaths: {}, secrets: ['TOKEN'] },
    sensitiveArguments: true,
    timeoutMs: 50,
    finalizeContent: () => undefined,
  });

  it('the model sees only name, description, inputSchema, title, annotations and outputSchema', () => {
    const view = modelView(defineTool(def));
    expect(Object.keys(view).sort()).toEqual([
      'annotations',
      'description',
      'inputSchema',
      'name',
      'outputSchema',
      'title',
    ]);
    expect(JSON.stringify(view)).not.toContain('secret.internal');
    expect(view.inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
  });

  it('slots a transport does not have are left out', () => {
    const view = modelView(defineTool(def), {});
    expect(Object.keys(view).sort()).toEqual(['description', 'inputSchema', 'name']);
  });

  it('the projection is a deep copy: changing it changes nothing registered', () => {
    const t = defineTool(def);
    const view = modelView(t);
    (view.inputSchema.properties as Record<string, unknown>).q = { type: 'number' };
    if (view.annotations) view.annotations.readOnlyHint = false;
    expect(modelView(t).inputSchema.properties).toEqual({ q: { type: 'string' } });
    expect(modelView(t).annotations).toEqual({ readOnlyHint: true });
  });
});
