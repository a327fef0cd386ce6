// A call's deadline timer and its listener on the caller's signal are armed only when the call
// waits (docs/decisions.md "The worker path, sixth round"): a worker-path answer the host's poll
// catches arms nothing, and a call that sleeps in its wait is still ended at its deadline.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallControl } from '../../host/src/sandbox/call-control.js';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import type { ToolFailure } from '../../host/src/tool/index.js';
import { failure, kitSpec, never, settle, utf8 } from './core-helpers.js';

const open: SandboxTool[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((t) => t.close()));
});

describe('a control arms its deadline only when a wait races it', () => {
  it('listen() does not arm: nothing fires at the deadline until a wait races the control, which then fails at once', async () => {
    const ctl = new CallControl(never(), 20);
    const heard: ToolFailure[] = [];
    ctl.listen((f) => heard.push(f));
    await settle(60);
    expect(heard).toEqual([]);
    expect(ctl.failure).toBeUndefined();
    await expect(ctl.race(new Promise(() => {}))).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(heard.map((f) => f.code)).toEqual(['TIMEOUT']);
  });

  it("listen() hears the caller's abort once a wait races the control", async () => {
    const ac = new AbortController();
    const ctl = new CallControl(ac.signal, 10_000);
    const heard: string[] = [];
    ctl.listen((f) => heard.push(f.code));
    const waiting = ctl.race(new Promise(() => {}));
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    expect(heard).toEqual(['ABORTED']);
  });

  it('onCancel() arms: its listener hears the deadline with no wait at all', async () => {
    const ctl = new CallControl(never(), 20);
    const heard: string[] = [];
    ctl.onCancel((f) => heard.push(f.code));
    await settle(80);
    expect(heard).toEqual(['TIMEOUT']);
    ctl.dispose();
  });
});

describe('the worker path arms a call only when its wait sleeps', () => {
  it("warm calls whose answers the host's poll catches arm no deadline timer (some of 200 must be caught)", async () => {
    const tool = await loadSandboxTool(
      kitSpec('greet', { execution: { path: 'worker' }, limits: { timeoutMs: 7_777 } }),
    );
    open.push(tool);
    for (let i = 0; i < 50; i++) await tool.call(utf8('warm'), { signal: never() });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const CALLS = 200;
    for (let i = 0; i < CALLS; i++) await tool.call(utf8('world'), { signal: never() });
    const deadlineTimers = timers.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms > 7_000 && ms <= 7_777);
    timers.mockRestore();
    // before, every worker-path call armed its deadline timer before the host even polled
    expect(deadlineTimers.length).toBeLessThan(CALLS);
    expect(tool.paths()).toMatchObject({ worker: CALLS + 50 });
  });

  it('a call that outlives the poll is still ended at its deadline and its worker torn down (spin)', async () => {
    const tool = await loadSandboxTool(kitSpec('spin', { execution: { path: 'worker' }, limits: { timeoutMs: 150 } }));
    open.push(tool);
    const t0 = performance.now();
    const err = await failure(tool.call(new Uint8Array(0), { signal: never() }), 'TIMEOUT');
    expect(err.message).toMatch(/150 ms deadline/);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
    expect(performance.now() - t0).toBeLessThan(150 + 500);
    expect(tool.stats()).toMatchObject({ busy: 0 });
  });

  it("a caller's abort while the call sleeps in its wait is ABORTED at once (spin)", async () => {
    const tool = await loadSandboxTool(
      kitSpec('spin', { execution: { path: 'worker' }, limits: { timeoutMs: 10_000 } }),
    );
    open.push(tool);
    const ac = new AbortController();
    const pending = tool.call(new Uint8Array(0), { signal: ac.signal });
    await settle(50);
    const t0 = performance.now();
    ac.abort();
    await failure(pending, 'ABORTED');
    expect(performance.now() - t0).toBeLessThan(200);
  });
});
