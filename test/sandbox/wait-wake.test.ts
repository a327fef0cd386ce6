// Cancellation during start and mid-run: the host wait ends at once and the instance is torn down.
import { afterEach, describe, expect, it } from 'vitest';
import { loadSandboxTool, type SandboxTool } from '../../host/src/sandbox/index.js';
import { watchLoop } from '../support/loop-watch.js';
import { failure, moduleSpec, never } from './core-helpers.js';

const open: SandboxTool[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return cond();
}

describe('sandbox: cancellation ends the host wait', () => {
  it('an abort while an instance is still starting answers ABORTED at once and tears that instance down long before its deadline', async () => {
    const tool = await loadSandboxTool(moduleSpec('hostile_init_loop', 'run', { limits: { timeoutMs: 10_000 } }));
    open.push(tool);
    const ac = new AbortController();
    const pending = tool.call(new Uint8Array(0), { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 50)); // places the abort inside the endless _initialize
    const answered = watchLoop(failure(pending, 'ABORTED'), 1);
    ac.abort();
    const w = await answered;
    expect(w.tookMs - w.lateMs).toBeLessThan(20);
    expect(await waitFor(() => tool.stats().live === 0, 2_000)).toBe(true);
  });

  it('a call aborted mid-run leaves a tool whose next calls on a fresh instance are answered in order', async () => {
    const tool = await loadSandboxTool(moduleSpec('core_kit', 'burn', { limits: { timeoutMs: 5_000 } }));
    open.push(tool);
    await tool.call(Uint8Array.of(4), { signal: never() });
    const ac = new AbortController();
    const pending = tool.call(Uint8Array.of(31), { signal: ac.signal });
    await waitFor(() => tool.stats().busy === 1, 5_000);
    ac.abort();
    await failure(pending, 'ABORTED');
    // the same inputs on an untouched tool give the answers each call must get
    const reference = await loadSandboxTool(moduleSpec('core_kit', 'burn', { limits: { timeoutMs: 5_000 } }));
    open.push(reference);
    for (let i = 1; i <= 5; i++) {
      const want = await reference.call(Uint8Array.of(i), { signal: never() });
      const got = await tool.call(Uint8Array.of(i), { signal: never() });
      expect(Array.from(got)).toEqual(Array.from(want));
    }
  });
});
