import { afterEach, describe, expect, it } from 'vitest';
import { createPluginHost, PluginError, type Context, type PluginHost } from '../../host/src/plugin/index.js';
import type { ToolDefinition } from '../../host/src/tool/index.js';

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: name,
  execute: () => ({ ok: true }),
  ...extra,
});

function counts(host: PluginHost): number[] {
  const s = host.hooks.snapshot();
  return [
    host.tools.list().length,
    s['tools/pre-execute'].length,
    s['tools/execute'].length,
    s['tools/post-execute'].length,
    s['tools/result'].length,
    s.guards.length,
  ];
}

let hosts: PluginHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.dispose()));
  hosts = [];
});
function newHost(): PluginHost {
  const h = createPluginHost();
  hosts.push(h);
  return h;
}

describe('plugin host', () => {
  it('disposing a plugin removes every registration it made: tools, every stage, guards, timers, effects and child plugins', async () => {
    const host = newHost();
    let ticks = 0;
    let effectUndone = false;
    let childUndone = false;
    const handle = host.root.plugin(
      (ctx: Context) => {
        ctx.tool(tool('a'));
        ctx.on('tools/pre-execute', 'pre', (_e, next) => next());
        ctx.on('tools/execute', 'wrap', (_e, next) => next());
        ctx.on('tools/post-execute', 'post', () => {});
        ctx.on('tools/result', 'obs', () => {});
        ctx.guard('g', () => undefined);
        ctx.setInterval(() => void ticks++, 5);
        ctx.effect(() => () => void (effectUndone = true));
        ctx.plugin(
          (child) => {
            child.tool(tool('b'));
            child.effect(() => () => void (childUndone = true));
          },
          null,
          { name: 'child' },
        );
      },
      null,
      { name: 'policy' },
    );
    expect(counts(host)).toEqual([2, 1, 1, 1, 1, 1]);
    await new Promise((r) => setTimeout(r, 30));
    expect(ticks).toBeGreaterThan(0);
    await handle.dispose();
    const ticksAtDispose = ticks;
    await new Promise((r) => setTimeout(r, 30));
    expect(counts(host)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(ticks).toBe(ticksAtDispose);
    expect(effectUndone).toBe(true);
    expect(childUndone).toBe(true);
    expect(handle.disposed).toBe(true);
    // After disposal calls go through an empty pipeline again.
    expect((await host.pipeline.call('a', {})).error?.code).toBe('UNKNOWN_TOOL');
  });

  it('effects are undone newest first', async () => {
    const host = newHost();
    const undone: string[] = [];
    const handle = host.root.plugin((ctx) => {
      for (const n of ['one', 'two', 'three']) ctx.effect(() => () => void undone.push(n));
    }, null);
    await handle.dispose();
    expect(undone).toEqual(['three', 'two', 'one']);
  });

  it('a plugin whose apply throws is undone and the error names the plugin', () => {
    const host = newHost();
    let caught: unknown;
    try {
      host.root.plugin(
        (ctx) => {
          ctx.tool(tool('half'));
          ctx.guard('g', () => undefined);
          throw new Error('bad config: "max" must be a number');
        },
        null,
        { name: 'rate_limit' },
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PluginError);
    expect((caught as PluginError).plugin).toBe('root/rate_limit');
    expect((caught as Error).message).toBe(
      'plugin "root/rate_limit" failed to apply: bad config: "max" must be a number',
    );
    expect(counts(host)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('an async apply that rejects is undone and `ready` rejects with the plugin name', async () => {
    const host = newHost();
    const handle = host.root.plugin(
      {
        name: 'loader',
        apply: async (ctx) => {
          ctx.tool(tool('early'));
          await new Promise((r) => setTimeout(r, 5));
          throw new Error('module not found');
        },
      },
      null,
    );
    await expect(handle.ready).rejects.toThrow('plugin "root/loader" failed to apply: module not found');
    expect(host.tools.get('early')).toBeUndefined();
    expect(handle.disposed).toBe(true);
  });

  it('a duplicate tool in a plugin undoes the plugin and leaves the first owner intact', () => {
    const host = newHost();
    host.root.plugin((ctx) => void ctx.tool(tool('shared', { description: 'first' })), null, { name: 'first' });
    expect(() =>
      host.root.plugin(
        (ctx) => {
          ctx.on('tools/pre-execute', 'x', (_e, next) => next());
          ctx.tool(tool('shared', { description: 'second' }));
        },
        null,
        { name: 'second' },
      ),
    ).toThrow('plugin "root/second" failed to apply: tool "shared": name: a tool with this name is already registered');
    expect(host.tools.get('shared')?.definition.description).toBe('first');
    expect(host.hooks.snapshot()['tools/pre-execute']).toHaveLength(0);
  });

  it('a disposed plugin context can register nothing more', async () => {
    const host = newHost();
    let saved: Context | undefined;
    const handle = host.root.plugin((ctx) => void (saved = ctx), null);
    await handle.dispose();
    expect(() => saved?.tool(tool('late'))).toThrow(/after the plugin was disposed/);
    expect(() => saved?.guard('late', () => undefined)).toThrow(/after the plugin was disposed/);
    expect(host.tools.list()).toHaveLength(0);
  });

  it("disposing a plugin awaits its tools' dispose()", async () => {
    const host = newHost();
    let released = false;
    const handle = host.root.plugin((ctx) => {
      ctx.tool(
        tool('pooled', { dispose: () => new Promise<void>((r) => setTimeout(() => ((released = true), r()), 20)) }),
      );
    }, null);
    await handle.dispose();
    expect(released).toBe(true);
  });

  it('a plugin registered through ctx runs in the pipeline in mount order', async () => {
    const host = newHost();
    host.root.plugin((ctx) => void ctx.tool(tool('t')), null);
    host.root.plugin(
      (ctx) => void ctx.on('tools/pre-execute', 'first', () => ({ kind: 'deny', reason: 'first wins' })),
      null,
    );
    host.root.plugin((ctx) => void ctx.on('tools/pre-execute', 'second', () => ({ kind: 'allow' })), null);
    const r = await host.pipeline.call('t', {});
    expect(r.error).toEqual({ code: 'DENIED', message: 'first wins' });
  });
});
