import { describe, expect, it } from 'vitest';
import type { PreExecuteListener } from '../../host/src/pipeline/index.js';
import { harness, recordingTool, sleep, text } from './helpers.js';

describe('pipeline stage 2: tools/pre-execute', () => {
  it('with no listener the call is allowed', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const r = await h.pipeline.call('rec', { n: 1 });
    expect(r.isError).toBe(false);
    expect(t.runs).toHaveLength(1);
    expect(r.meta?.decision).toMatchObject({ decidedBy: 'default', final: 'allowed' });
  });

  it('a deny short-circuits: later listeners and the body never run, and the reason is the content', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const order: string[] = [];
    h.hooks.on(
      'tools/pre-execute',
      'first',
      () => (order.push('first'), { kind: 'deny', reason: 'no writes in plan mode' }),
    );
    h.hooks.on('tools/pre-execute', 'second', (_e, next) => (order.push('second'), next()));
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({ code: 'DENIED', message: 'no writes in plan mode' });
    expect(text(r)).toBe('no writes in plan mode');
    expect(order).toEqual(['first']);
    expect(t.runs).toHaveLength(0);
  });

  it('an allow through next() does not short-circuit: a later listener can still deny', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const order: string[] = [];
    h.hooks.on('tools/pre-execute', 'allower', async (_e, next) => {
      order.push('allower');
      return next();
    });
    h.hooks.on('tools/pre-execute', 'denier', () => (order.push('denier'), { kind: 'deny', reason: 'later says no' }));
    const r = await h.pipeline.call('rec', {});
    expect(order).toEqual(['allower', 'denier']);
    expect(r.error?.code).toBe('DENIED');
    expect(r.meta?.decision).toMatchObject({
      decidedBy: 'denier',
      steps: [
        { id: 'allower', kind: 'pass' },
        { id: 'denier', kind: 'deny', reason: 'later says no' },
      ],
    });
    expect(t.runs).toHaveLength(0);
  });

  it('a listener that neither calls next() nor returns a decision is a LISTENER_ERROR, not a hang', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const forgetful = (() => undefined) as unknown as PreExecuteListener;
    h.hooks.on('tools/pre-execute', 'forgetful', forgetful);
    const started = Date.now();
    const r = await h.pipeline.call('rec', {});
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r.error?.code).toBe('LISTENER_ERROR');
    expect(r.error?.message).toContain('"forgetful" neither called next() nor returned a decision');
    expect(t.runs).toHaveLength(0);
  });

  it('a listener that throws gives LISTENER_ERROR and the body does not run', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'boom', () => {
      throw new Error('config missing');
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({ code: 'LISTENER_ERROR', message: 'pre-execute listener "boom" threw: config missing' });
    expect(t.runs).toHaveLength(0);
  });

  it('a downstream failure cannot be caught by an earlier listener and turned into allow', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'swallower', async (_e, next) => {
      try {
        await next();
      } catch {
        /* pretend nothing happened */
      }
      return { kind: 'allow' };
    });
    h.hooks.on('tools/pre-execute', 'broken', () => {
      throw new Error('bad rule');
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('LISTENER_ERROR');
    expect(r.error?.message).toContain('"broken"');
    expect(t.runs).toHaveLength(0);
  });

  it('a listener that never settles is cut off by the listener timeout', async () => {
    const h = harness({ listenerTimeoutMs: 50 });
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'stuck', () => new Promise(() => {}));
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({
      code: 'LISTENER_ERROR',
      message: 'pre-execute listener "stuck" gave no decision within 50 ms',
    });
  });

  it('listeners run in registration order, and a removed listener no longer runs', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    const order: string[] = [];
    const mk =
      (id: string): PreExecuteListener =>
      (_e, next) => (order.push(id), next());
    h.hooks.on('tools/pre-execute', 'a', mk('a'));
    const offB = h.hooks.on('tools/pre-execute', 'b', mk('b'));
    h.hooks.on('tools/pre-execute', 'c', mk('c'));
    await h.pipeline.call('rec', {});
    offB();
    await h.pipeline.call('rec', {});
    expect(order).toEqual(['a', 'b', 'c', 'a', 'c']);
  });

  it('a listener that returns without next() decides for everyone after it (its allow ends the chain)', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'early_allow', () => ({ kind: 'allow' }));
    h.hooks.on('tools/pre-execute', 'late_deny', () => ({ kind: 'deny', reason: 'never consulted' }));
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(false);
    expect(r.meta?.decision).toMatchObject({ decidedBy: 'early_allow', steps: [{ id: 'early_allow', kind: 'allow' }] });
  });

  it('a call uses the listeners registered when it started, even if the set changes while it runs', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.hooks.on('tools/pre-execute', 'slow', async (_e, next) => {
      await gate;
      return next();
    });
    const pending = h.pipeline.call('rec', {});
    await sleep(5);
    h.hooks.on('tools/pre-execute', 'added_later', () => ({ kind: 'deny', reason: 'too late for the running call' }));
    release();
    expect((await pending).isError).toBe(false);
    expect((await h.pipeline.call('rec', {})).error?.code).toBe('DENIED');
  });
});
