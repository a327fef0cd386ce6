import { describe, expect, it } from 'vitest';
import { InMemoryApprovalService } from '../../host/src/approval/index.js';
import type { Guard, PreExecuteListener } from '../../host/src/pipeline/index.js';
import { harness, recordingTool } from './helpers.js';

const ask: PreExecuteListener = () => ({ kind: 'ask', reason: 'writes a file' });

describe('pipeline stage 2: ask and approval', () => {
  it('ask with no approval service denies with APPROVAL_DENIED', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'asker', ask);
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({
      code: 'APPROVAL_DENIED',
      message: 'approval required (writes a file) but no approval service is configured',
    });
    expect(t.runs).toHaveLength(0);
  });

  it('allowed-once covers one call only: the next call asks again', async () => {
    const approval = new InMemoryApprovalService(['allowed-once', 'rejected']);
    const h = harness({ approval });
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'asker', ask);
    const first = await h.pipeline.call('rec', { n: 1 });
    const second = await h.pipeline.call('rec', { n: 2 });
    expect(first.isError).toBe(false);
    expect(second.error?.code).toBe('APPROVAL_DENIED');
    expect(approval.requests.map((q) => [q.exec.arguments.n, q.reason, q.decidedBy])).toEqual([
      [1, 'writes a file', 'asker'],
      [2, 'writes a file', 'asker'],
    ]);
    expect(t.runs).toEqual([{ n: 1 }]);
  });

  it('rejected, cancelled and unavailable each deny with their own reason', async () => {
    const approval = new InMemoryApprovalService(['rejected', 'cancelled', 'unavailable']);
    const h = harness({ approval });
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'asker', ask);
    const messages: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await h.pipeline.call('rec', {});
      expect(r.error?.code).toBe('APPROVAL_DENIED');
      messages.push(r.error?.message);
    }
    expect(messages).toEqual([
      'approval rejected (writes a file)',
      'approval cancelled before an answer (writes a file)',
      expect.stringMatching(
        /^no approval channel available \(writes a file\); to answer asks, run toolgate in a terminal, .*--policy-set dev/,
      ),
    ]);
  });

  it('an approval nobody answers times out as APPROVAL_DENIED', async () => {
    const h = harness({ approval: new InMemoryApprovalService(['never']), approvalTimeoutMs: 40 });
    h.tools.register(recordingTool());
    h.hooks.on('tools/pre-execute', 'asker', ask);
    const r = await h.pipeline.call('rec', {});
    expect(r.error).toEqual({ code: 'APPROVAL_DENIED', message: 'approval timed out after 40 ms (writes a file)' });
    expect(r.meta?.decision).toMatchObject({ approval: { outcome: 'timeout' }, final: 'denied' });
  });

  it('the caller cancelling while approval is pending gives ABORTED_BEFORE_DISPATCH', async () => {
    const h = harness({ approval: new InMemoryApprovalService(['never']) });
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'asker', ask);
    const r = await h.pipeline.call('rec', {}, { signal: AbortSignal.timeout(30) });
    expect(r.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(t.runs).toHaveLength(0);
  });
});

describe('pipeline stage 3: guards', () => {
  const denyEnv: Guard = (exec) =>
    String(exec.arguments.path ?? '').includes('.env') ? 'path matches **/.env*' : undefined;
  const allowAll: PreExecuteListener = () => ({ kind: 'allow' });
  const passAlong: PreExecuteListener = (_e, next) => next();

  it("a guard's denial survives every listener order", async () => {
    // Every order of: guard registered before/after listeners, allow-without-next first or last.
    const orders: ((h: ReturnType<typeof harness>) => void)[][] = [];
    const steps = [
      (h: ReturnType<typeof harness>) => void h.hooks.guard('env_guard', denyEnv),
      (h: ReturnType<typeof harness>) => void h.hooks.on('tools/pre-execute', 'allow_all', allowAll),
      (h: ReturnType<typeof harness>) => void h.hooks.on('tools/pre-execute', 'pass', passAlong),
    ];
    for (const a of steps)
      for (const b of steps) for (const c of steps) if (new Set([a, b, c]).size === 3) orders.push([a, b, c]);
    expect(orders).toHaveLength(6);
    for (const order of orders) {
      const h = harness();
      const t = recordingTool();
      h.tools.register(t);
      for (const step of order) step(h);
      const r = await h.pipeline.call('rec', { path: 'app/.env.local' });
      expect(r.error).toEqual({ code: 'GUARD_DENIED', message: 'path matches **/.env*' });
      expect(t.runs).toHaveLength(0);
      expect((await h.pipeline.call('rec', { path: 'app/readme.md' })).isError).toBe(false);
    }
  });

  it('guards run only when the decision is allow', async () => {
    const h = harness();
    h.tools.register(recordingTool());
    let guarded = 0;
    h.hooks.guard('counting', () => void guarded++);
    h.hooks.on('tools/pre-execute', 'deny', () => ({ kind: 'deny', reason: 'no' }));
    await h.pipeline.call('rec', {});
    expect(guarded).toBe(0);
  });

  it('guards run before a person is asked: a call a guard denies never reaches the approval service', async () => {
    const approval = new InMemoryApprovalService([], 'allowed-once');
    const h = harness({ approval });
    const t = recordingTool();
    h.tools.register(t);
    h.hooks.on('tools/pre-execute', 'asker', ask);
    h.hooks.guard('env_guard', denyEnv);
    const r = await h.pipeline.call('rec', { path: '.env' });
    expect(r.error?.code).toBe('GUARD_DENIED');
    expect(r.meta?.decision).toMatchObject({ guard: { id: 'env_guard' } });
    expect((r.meta?.decision as { approval?: unknown }).approval).toBeUndefined();
    expect(approval.requests).toHaveLength(0);
    expect(t.runs).toHaveLength(0);
    // A call the guard lets through is still asked.
    expect((await h.pipeline.call('rec', { path: 'ok.txt' })).isError).toBe(false);
    expect(approval.requests).toHaveLength(1);
  });

  it('a guard that throws or returns something else than a string fails closed with LISTENER_ERROR', async () => {
    const h = harness();
    const t = recordingTool();
    h.tools.register(t);
    const off = h.hooks.guard('thrower', () => {
      throw new Error('cannot parse path');
    });
    expect((await h.pipeline.call('rec', {})).error).toEqual({
      code: 'LISTENER_ERROR',
      message: 'guard "thrower" threw: cannot parse path',
    });
    off();
    h.hooks.guard('async_by_mistake', (async () => undefined) as unknown as Guard);
    expect((await h.pipeline.call('rec', {})).error?.code).toBe('LISTENER_ERROR');
    expect(t.runs).toHaveLength(0);
  });
});
