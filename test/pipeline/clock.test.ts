// The clocks' shared timer (pipeline/clock.ts): one timer for every running deadline. Its grain is
// a millisecond, so a sweep finds clocks due a fraction of a millisecond later; those must wait for
// the next sweep, never fire early.
import { describe, expect, it } from 'vitest';
import { CallClock } from '../../host/src/pipeline/clock.js';

/** Spins for `ms` (sub-millisecond steps between clock starts, which no timer can give). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

/** Starts `n` clocks of `budget` ms, `stepMs` apart, and resolves with each one's due time and when it fired. */
async function staggered(n: number, budget: number, stepMs: number): Promise<{ due: number; fired: number }[]> {
  const started: Promise<{ due: number; fired: number }>[] = [];
  for (let i = 0; i < n; i++) {
    const clock = new CallClock(`t${i}`, new AbortController().signal, { ms: budget, source: 'a test' });
    const due = clock.due;
    started.push(
      new Promise((resolve) =>
        clock.signal.addEventListener('abort', () => {
          resolve({ due, fired: performance.now() });
          clock.release();
        }),
      ),
    );
    spin(stepMs);
  }
  return Promise.all(started);
}

describe("the clocks' shared deadline timer", () => {
  it('a deadline never fires before its budget, even when due a fraction of a millisecond after another', async () => {
    // several rounds: a sweep delayed past every due time (a loaded machine) proves nothing either way
    for (let round = 0; round < 5; round++) {
      const clocks = await staggered(24, 20, 0.05);
      const early = clocks.filter((c) => c.fired < c.due).map((c) => `${(c.due - c.fired).toFixed(3)} ms early`);
      expect(early).toEqual([]);
      // and none is left waiting: each fired, within a generous bound of its due time
      for (const c of clocks) expect(c.fired - c.due).toBeLessThan(5_000);
    }
  });

  it('a clock alone fires at or after its budget, with its TIMEOUT', async () => {
    const clock = new CallClock('alone', new AbortController().signal, { ms: 15, source: 'a test' });
    const due = clock.due;
    const fired = await new Promise<number>((resolve) =>
      clock.signal.addEventListener('abort', () => resolve(performance.now())),
    );
    expect(fired).toBeGreaterThanOrEqual(due);
    expect(clock.timeoutReason?.code).toBe('TIMEOUT');
    clock.release();
  });
});
