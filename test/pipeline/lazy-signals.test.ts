// A call's abort signals are made only when something reads them (docs/decisions.md, "Server CPU
// per call, sixth round"): the pipeline, the bridge and the sandbox read the cancellation's state
// itself, and whoever reads `exec.signal` gets a real AbortSignal that tells the same story.
import { afterEach, describe, expect, it } from 'vitest';
import { LazyAbort } from '../../host/src/signals/index.js';
import type { ToolDefinition } from '../../host/src/tool/index.js';
import { harness, sleep, text } from './helpers.js';

const never = (): Promise<never> => new Promise(() => {});

/** Counts the AbortControllers whose signal was asked for (Node makes the signal on that first read). */
function countSignalsMade(): { made: () => number; restore: () => void } {
  const desc = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal');
  const get = desc?.get;
  if (desc === undefined || get === undefined) throw new Error('AbortController.prototype.signal is not a getter here');
  const seen = new WeakSet<AbortController>();
  let made = 0;
  Object.defineProperty(AbortController.prototype, 'signal', {
    ...desc,
    get(this: AbortController) {
      if (!seen.has(this)) {
        seen.add(this);
        made++;
      }
      return get.call(this) as AbortSignal;
    },
  });
  return { made: () => made, restore: () => Object.defineProperty(AbortController.prototype, 'signal', desc) };
}

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

function tool(over: Partial<ToolDefinition>): ToolDefinition {
  return { name: 't', description: 'test tool', parameters: {}, timeoutMs: 5_000, execute: () => ({ ok: 1 }), ...over };
}

describe('pipeline: abort signals made only when read', () => {
  it('a call with a deadline whose caller passes an owned abort makes no AbortSignal when nobody reads exec.signal', async () => {
    const h = harness();
    h.tools.register(tool({}));
    const counter = countSignalsMade();
    restore = counter.restore;
    const r = await h.pipeline.call('t', {}, { cancel: new LazyAbort() });
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ ok: 1 });
    expect(counter.made()).toBe(0);
  });

  it("a listener reading exec.signal gets the caller's own, one object on every read, aborted with the caller's reason", async () => {
    const h = harness();
    h.tools.register(tool({ execute: never }));
    const cancel = new LazyAbort();
    const seen: AbortSignal[] = [];
    h.hooks.on('tools/pre-execute', 'reader', (exec, next) => {
      seen.push(exec.signal, exec.signal);
      return next();
    });
    const call = h.pipeline.call('t', {}, { cancel });
    await sleep(20);
    const why = new Error('the client went away');
    cancel.abort(why);
    const r = await call;
    expect(r.error?.code).toBe('ABORTED');
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toBe(cancel.signal);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBe(why);
  });

  it("a body reading its signal gets one that fires on the caller's cancellation, and another on the deadline with the clock's TIMEOUT", async () => {
    const h = harness();
    let bodySignal: AbortSignal | undefined;
    h.tools.register(
      tool({
        execute: (_a, exec) => {
          bodySignal = exec.signal;
          return never();
        },
      }),
    );
    const cancel = new LazyAbort();
    const call = h.pipeline.call('t', {}, { cancel });
    await sleep(20);
    expect(bodySignal?.aborted).toBe(false);
    cancel.abort(new Error('gone'));
    expect((await call).error?.code).toBe('ABORTED');
    expect(bodySignal?.aborted).toBe(true);

    h.tools.register(
      tool({
        name: 'short',
        timeoutMs: 100,
        execute: (_a, exec) => {
          bodySignal = exec.signal;
          return never();
        },
      }),
    );
    const r = await h.pipeline.call('short', {}, { cancel: new LazyAbort() });
    expect(r.error?.code).toBe('TIMEOUT');
    expect(bodySignal?.aborted).toBe(true);
    expect((bodySignal?.reason as Error).message).toContain('deadline of 100 ms');
  });
});

describe('pipeline: the clocks share one timer', () => {
  it('a short deadline that starts while a long one runs fires at its own time, and the long one at its own', async () => {
    const h = harness();
    h.tools.register(tool({ name: 'long', timeoutMs: 1_500, execute: never }));
    h.tools.register(tool({ name: 'short', timeoutMs: 150, execute: never }));
    const t0 = performance.now();
    const long = h.pipeline.call('long', {}).then((r) => ({ r, ms: performance.now() - t0 }));
    await sleep(30);
    const t1 = performance.now();
    const short = await h.pipeline.call('short', {});
    const shortMs = performance.now() - t1;
    expect(short.error?.code).toBe('TIMEOUT');
    expect(text(short)).toContain('deadline of 150 ms');
    expect(shortMs).toBeGreaterThanOrEqual(140);
    expect(shortMs).toBeLessThan(1_200); // not held until the long deadline
    const { r, ms } = await long;
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('deadline of 1500 ms');
    expect(ms).toBeGreaterThanOrEqual(1_490);
  });

  it('calls that end before their deadline leave no clock behind: a later short deadline still fires', async () => {
    const h = harness();
    h.tools.register(tool({ name: 'quick', timeoutMs: 60_000 }));
    h.tools.register(tool({ name: 'short', timeoutMs: 100, execute: never }));
    for (let i = 0; i < 200; i++) expect((await h.pipeline.call('quick', {})).isError).toBe(false);
    const t0 = performance.now();
    const r = await h.pipeline.call('short', {});
    expect(r.error?.code).toBe('TIMEOUT');
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});

describe('pipeline: the output is checked once, on a frozen copy', () => {
  it('a body that changes its value after returning it does not change the result; a wrapper that swaps in an invalid value is checked', async () => {
    const h = harness();
    const kept = { n: 1 };
    h.tools.register(
      tool({
        name: 'mutates',
        output: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
        execute: async () => {
          setImmediate(() => {
            kept.n = 2;
          });
          return kept;
        },
      }),
    );
    const r = await h.pipeline.call('mutates', {});
    await sleep(10);
    expect(r.structuredContent).toEqual({ n: 1 });
    expect(Object.isFrozen(r.structuredContent)).toBe(true);

    h.hooks.on('tools/execute', 'swap', async (_e, next) => {
      const out = await next();
      expect(Object.isFrozen(out)).toBe(true);
      return { ok: true, value: { n: 'not an integer' } };
    });
    const swapped = await h.pipeline.call('mutates', {});
    expect(swapped.error?.code).toBe('INVALID_OUTPUT');
  });
});
