import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ToolFailure, sealJson, type Json } from '../../host/src/tool/index.js';
import { harness, recordingTool, sleep, text } from './helpers.js';

/** A body that waits until its signal aborts (or 5 s, so a broken test cannot hang). */
function waitForAbort(signal: AbortSignal, seen: { reason?: unknown; aborted?: boolean }): Promise<Json> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve('never aborted'), 5000);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      seen.aborted = true;
      seen.reason = signal.reason;
      resolve('saw abort');
    });
  });
}

describe('pipeline stage 4: tools/execute', () => {
  it("a body's own value is copied: changing it after it returned changes no result", async () => {
    const h = harness();
    const mine = { items: [{ n: 1 }] };
    h.tools.register(recordingTool({ body: () => mine }));
    const r = await h.pipeline.call('rec', {});
    mine.items[0]!.n = 99;
    mine.items.push({ n: 2 });
    expect(r.structuredContent).toEqual({ items: [{ n: 1 }] });
    expect(r.structuredContent).not.toBe(mine);
    expect(Object.isFrozen((r.structuredContent as typeof mine).items[0])).toBe(true);
    expect(Object.isFrozen(mine)).toBe(false);
  });

  it('a value the host sealed (parsed from module bytes) is the result as it is, with no copy', async () => {
    const h = harness();
    const sealed = sealJson(JSON.parse('{"echo":{"text":"hi"}}') as Json);
    h.tools.register(recordingTool({ body: () => sealed }));
    const r = await h.pipeline.call('rec', {});
    expect(r.structuredContent).toBe(sealed);
    expect(r.content).toEqual([{ type: 'text', text: '{"echo":{"text":"hi"}}' }]);
  });

  it("a body's value that is not JSON is still refused: only a sealed value skips the check", async () => {
    const h = harness();
    h.tools.register(recordingTool({ body: () => ({ n: Number.NaN }) as unknown as Json }));
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('INVALID_OUTPUT');
  });

  it("the caller's abort reaches the body even after a wrapper replaced the signal", async () => {
    const h = harness();
    const seen: { aborted?: boolean } = {};
    h.tools.register(recordingTool({ body: (_a, signal) => waitForAbort(signal, seen) }));
    const wrapperSignal = new AbortController(); // never aborted
    h.hooks.on('tools/execute', 'replacer', (_e, next) => next({ signal: wrapperSignal.signal }));
    const caller = new AbortController();
    const pending = h.pipeline.call('rec', {}, { signal: caller.signal });
    await sleep(20);
    caller.abort();
    const r = await pending;
    expect(seen.aborted).toBe(true);
    expect(r.error?.code).toBe('ABORTED');
  });

  it('a wrapper may replace only the signal: anything else passed to next() is a LISTENER_ERROR', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/execute', 'sneaky', (_e, next) => next({ arguments: { path: '/etc' } } as never));
    const r = await h.pipeline.call('rec', { path: 'ok' });
    expect(r.error).toEqual({
      code: 'LISTENER_ERROR',
      message: 'execute wrapper "sneaky": next() may replace only the signal, not "arguments"',
    });
    expect(t.runs).toHaveLength(0);
  });

  it("a wrapper's own result, returned without next(), is re-validated against output.schema", async () => {
    const h = harness();
    const t = recordingTool({
      output: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    });
    h.tools.register(t);
    let value: Json = { n: 'not a number' };
    h.hooks.on('tools/execute', 'cache', () => ({ ok: true, value }));
    const bad = await h.pipeline.call('rec', {});
    expect(bad.error?.code).toBe('INVALID_OUTPUT');
    expect(bad.error?.message).toContain('output "n": must be integer');
    value = { n: 4 };
    const good = await h.pipeline.call('rec', {});
    expect(good.structuredContent).toEqual({ n: 4 });
    expect(t.runs).toHaveLength(0);
  });

  it('a thrown body becomes an isError outcome before wrappers see it; ToolFailure keeps its code', async () => {
    const h = harness();
    let fail: unknown = new Error('disk on fire');
    h.tools.register(
      recordingTool({
        body: () => {
          throw fail;
        },
      }),
    );
    const seenByWrapper: unknown[] = [];
    h.hooks.on('tools/execute', 'watch', async (_e, next) => {
      const out = await next();
      seenByWrapper.push(out);
      return out;
    });
    const r1 = await h.pipeline.call('rec', {});
    expect(r1.error).toEqual({ code: 'TOOL_ERROR', message: 'tool "rec" failed: disk on fire' });
    fail = new ToolFailure('RATE_LIMITED', 'upstream said slow down');
    const r2 = await h.pipeline.call('rec', {});
    expect(r2.error).toEqual({ code: 'RATE_LIMITED', message: 'upstream said slow down' });
    expect(seenByWrapper).toEqual([
      { ok: false, error: { code: 'TOOL_ERROR', message: 'tool "rec" failed: disk on fire' } },
      { ok: false, error: { code: 'RATE_LIMITED', message: 'upstream said slow down' } },
    ]);
  });

  it('a wrapper may retry by calling next() again', async () => {
    const h = harness();
    let attempts = 0;
    h.tools.register(
      recordingTool({
        body: () => {
          attempts++;
          if (attempts < 3) throw new Error('flaky');
          return { attempts };
        },
      }),
    );
    h.hooks.on('tools/execute', 'retry', async (_e, next) => {
      let out = await next();
      for (let i = 0; i < 5 && !out.ok; i++) out = await next();
      return out;
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.structuredContent).toEqual({ attempts: 3 });
  });

  it("the tool's timeoutMs is enforced even when a native body ignores its signal", async () => {
    const h = harness();
    h.tools.register(
      recordingTool({ timeoutMs: 40, body: () => new Promise((r) => setTimeout(() => r('late'), 2000)) }),
    );
    const started = Date.now();
    const r = await h.pipeline.call('rec', {});
    expect(Date.now() - started).toBeLessThan(1500);
    expect(r.error?.code).toBe('TIMEOUT');
    expect(r.error?.message).toMatch(
      /^tool "rec" did not finish within its deadline of 40 ms \(set by the timeout of tool "rec"\); it ran out in tools\/execute \(the tool's body\)$/,
    );
  });

  it("a wrapper's deadline signal ends the body with TIMEOUT", async () => {
    const h = harness();
    const seen: { aborted?: boolean } = {};
    h.tools.register(recordingTool({ body: (_a, signal) => waitForAbort(signal, seen) }));
    h.hooks.on('tools/execute', 'deadline', (_e, next) => next({ signal: AbortSignal.timeout(30) }));
    const r = await h.pipeline.call('rec', {});
    expect(seen.aborted).toBe(true);
    expect(r.error?.code).toBe('TIMEOUT');
  });

  it('cancellation after dispatch turns a would-be success into ABORTED', async () => {
    const h = harness();
    const caller = new AbortController();
    // The body finishes normally, but only after the caller has already given up.
    h.tools.register(recordingTool({ body: () => (caller.abort(), { done: true }) }));
    const r = await h.pipeline.call('rec', {}, { signal: caller.signal });
    expect(r.error?.code).toBe('ABORTED');
  });

  it('cancellation after dispatch keeps a more specific failure', async () => {
    const h = harness();
    const caller = new AbortController();
    h.tools.register(
      recordingTool({
        body: () => {
          caller.abort();
          throw new ToolFailure('OUTPUT_TOO_LARGE', 'output over 1 MiB');
        },
      }),
    );
    const r = await h.pipeline.call('rec', {}, { signal: caller.signal });
    expect(r.error).toEqual({ code: 'OUTPUT_TOO_LARGE', message: 'output over 1 MiB' });
  });

  it("the body's value is validated against output.schema (INVALID_OUTPUT), and a non-JSON value is refused", async () => {
    const h = harness();
    let value: unknown = { n: 'x' };
    h.tools.register(
      recordingTool({
        output: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
        body: () => value as Json,
      }),
    );
    expect((await h.pipeline.call('rec', {})).error?.code).toBe('INVALID_OUTPUT');
    value = { n: 1, f: () => 1 };
    expect((await h.pipeline.call('rec', {})).error?.code).toBe('INVALID_OUTPUT');
  });

  it('a wrapper cannot run the body after the call has ended', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    let late: Promise<unknown> | undefined;
    h.hooks.on('tools/execute', 'sneaky', (_e, next) => {
      setTimeout(() => {
        late = next().catch((err: unknown) => (err as Error).message);
      }, 5);
      return { ok: true, value: { cached: true } };
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.structuredContent).toEqual({ cached: true });
    await sleep(30);
    expect(await late).toBe('execute wrapper "sneaky" called next() after the call ended');
    expect(t.runs).toHaveLength(0);
  });

  it('a wrapper that throws gives LISTENER_ERROR', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    h.hooks.on('tools/execute', 'bad', () => {
      throw new Error('oops');
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({ code: 'LISTENER_ERROR', message: 'execute wrapper "bad" threw: oops' });
    expect(text(r)).toBe('execute wrapper "bad" threw: oops');
  });
});

describe('pipeline: signal hygiene', () => {
  it("a finished call leaves no listener on the caller's signal, whatever wrappers, deadlines and approvals did", async () => {
    const { InMemoryApprovalService } = await import('../../host/src/approval/index.js');
    const h = harness({ approval: new InMemoryApprovalService([], 'allowed-once') });
    h.tools.register(recordingTool({ timeoutMs: 1000 }));
    h.hooks.on('tools/pre-execute', 'ask', () => ({ kind: 'ask' }));
    h.hooks.on('tools/execute', 'deadline', (_e, next) => next({ signal: new AbortController().signal }));
    const caller = new AbortController();
    for (let i = 0; i < 20; i++)
      expect((await h.pipeline.call('rec', {}, { signal: caller.signal })).isError).toBe(false);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});

describe('pipeline: output rendering', () => {
  it("render 'json' gives compact JSON text, 'text' gives a string as is, a template substitutes fields", async () => {
    const h = harness();
    const value = { user: { name: 'Ada', tags: ['x', 'y'] }, n: 2 };
    h.tools.register(recordingTool({ name: 'j', output: { render: 'json' }, body: () => value }));
    h.tools.register(recordingTool({ name: 't', output: { render: 'text' }, body: () => 'plain words' }));
    h.tools.register(
      recordingTool({
        name: 'tpl',
        output: { render: { template: 'Hi {{user.name}} ({{user.tags.1}}, {{n}}, {{missing}})' } },
        body: () => value,
      }),
    );
    expect(text(await h.pipeline.call('j', {}))).toBe(JSON.stringify(value));
    expect(text(await h.pipeline.call('t', {}))).toBe('plain words');
    expect(text(await h.pipeline.call('tpl', {}))).toBe('Hi Ada (y, 2, )');
  });

  it('structuredContent carries object values only; arrays and scalars travel as content alone', async () => {
    const h = harness();
    let value: Json = { a: 1 };
    h.tools.register(recordingTool({ body: () => value }));
    expect((await h.pipeline.call('rec', {})).structuredContent).toEqual({ a: 1 });
    value = [1, 2];
    const arr = await h.pipeline.call('rec', {});
    expect('structuredContent' in arr).toBe(false);
    expect(text(arr)).toBe('[1,2]');
    value = 'just text';
    expect('structuredContent' in (await h.pipeline.call('rec', {}))).toBe(false);
  });
});
