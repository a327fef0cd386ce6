// The call's one deadline bounds every stage: listeners, guards, wrappers, the body, post-execute.
// Each test proves the outcome and that the call ended well before the longer bound it could
// otherwise have waited for (no tight wall-clock bound: the machine is shared).
import { describe, expect, it } from 'vitest';
import { InMemoryApprovalService } from '../../host/src/approval/index.js';
import { harness, recordingTool, text } from './helpers.js';

const never = (): Promise<never> => new Promise(() => {});

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work;
  return { value, ms: performance.now() - t0 };
}

describe('pipeline: the call deadline', () => {
  it('a pre-execute listener that never settles ends at the tool deadline with TIMEOUT naming the stage and listener', async () => {
    const h = harness();
    const t = recordingTool({ timeoutMs: 300 });
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'stuck', never);
    const { value: r, ms } = await timed(h.pipeline.call('rec', {}));
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('tools/pre-execute (listener "stuck")');
    expect(ms).toBeLessThan(15_000); // the old fixed listener bound was 30 s
    expect(t.runs).toHaveLength(0);
  });

  it('a listener stuck after next() returned is named, not the one below it', async () => {
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 200 }));
    h.hooks.on('tools/pre-execute', 'outer', async (_e, next) => {
      await next();
      return never();
    });
    h.hooks.on('tools/pre-execute', 'inner', (_e, next) => next());
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('(listener "outer")');
  });

  it('a deadline rule shorter than the tool timeout bounds a wrapper that never calls next()', async () => {
    const h = harness();
    const t = recordingTool({ timeoutMs: 8_000 });
    h.tools.register(t);
    h.hooks.deadline('short', () => 300);
    h.hooks.on('tools/execute', 'hang', never);
    const { value: r, ms } = await timed(h.pipeline.call('rec', {}));
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('deadline of 300 ms (set by policy "short")');
    expect(text(r)).toContain('tools/execute (wrapper "hang")');
    expect(ms).toBeLessThan(4_000); // under half the tool's own timeout
    expect(t.runs).toHaveLength(0);
  });

  it('a signal a wrapper hands down bounds a wrapper below it that never calls next()', async () => {
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 8_000 }));
    h.hooks.on('tools/execute', 'short', (_e, next) => next({ signal: AbortSignal.timeout(200) }));
    h.hooks.on('tools/execute', 'hang', never);
    const { value: r, ms } = await timed(h.pipeline.call('rec', {}));
    expect(r.error?.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(4_000);
  });

  it('no deadline rule can lengthen the tool timeout: the shortest wins', async () => {
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 200 }));
    h.hooks.deadline('long', () => 60_000);
    h.hooks.on('tools/execute', 'hang', never);
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('set by the timeout of tool "rec"');
  });

  it('a post-execute listener that never settles ends the call with TIMEOUT naming it', async () => {
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 300 }));
    h.hooks.on('tools/post-execute', 'stuck-post', never);
    const { value: r, ms } = await timed(h.pipeline.call('rec', {}));
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('tools/post-execute (listener "stuck-post")');
    expect(ms).toBeLessThan(15_000);
  });

  it('after a timeout, post-execute still runs on the failure (so it can be redacted)', async () => {
    const h = harness();
    h.tools.register(recordingTool({ timeoutMs: 100, body: never }));
    let seen: string | undefined;
    h.hooks.on('tools/post-execute', 'scrub', (call) => {
      seen = call.result.error?.code;
      call.accept([{ type: 'text', text: 'scrubbed' }]);
    });
    const r = await h.pipeline.call('rec', {});
    expect(seen).toBe('TIMEOUT');
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toBe('scrubbed');
  });

  it('a guard that overruns the deadline ends the call with TIMEOUT naming the guard', async () => {
    const h = harness();
    const t = recordingTool({ timeoutMs: 50 });
    h.tools.register(t);
    h.hooks.guard('slow-guard', () => {
      const until = performance.now() + 120;
      while (performance.now() < until) {
        // busy: a synchronous guard cannot be interrupted, only caught right after
      }
      return undefined;
    });
    const r = await h.pipeline.call('rec', {});
    expect(r.error?.code).toBe('TIMEOUT');
    expect(text(r)).toContain('guards (guard "slow-guard")');
    expect(t.runs).toHaveLength(0);
  });

  it('the wait for a person is off the clock: an approval slower than the deadline still lets the call run', async () => {
    const approval = new InMemoryApprovalService([], 'never');
    const h = harness({ approval });
    const t = recordingTool({ timeoutMs: 150 });
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'asker', () => ({ kind: 'ask' }));
    const slowYes = { request: () => new Promise<'allowed-once'>((r) => setTimeout(() => r('allowed-once'), 400)) };
    h.pipeline.approval = slowYes;
    const r = await h.pipeline.call('rec', {});
    expect(r.isError).toBe(false);
    expect(t.runs).toHaveLength(1);
  });

  it('the caller cancelling during a stuck pre-execute listener answers at once with ABORTED_BEFORE_DISPATCH', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'stuck', never);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const r = await h.pipeline.call('rec', {}, { signal: caller.signal });
    expect(r.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
  });
});
