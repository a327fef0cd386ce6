// Timing in tests, net of the scheduler. The suite runs on a 2-core machine shared with other test
// processes, where any timer can fire hundreds of ms late. A rule about how soon the host answers is
// judged on what the host adds beyond the event loop's own lateness in the same window; raw
// wall-clock figures belong in `make bench`.

export interface LoopWatch {
  /** Wall time from the watch's start until `p` settled. */
  tookMs: number;
  /** The worst lateness of a ticker during that time: how long the process could not run timers. */
  lateMs: number;
  /** How many times the ticker ran: a host that blocked its event loop throughout ticks at most once. */
  ticks: number;
}

/** Waits for `p` (fulfilled or rejected) while a ticker watches the event loop. */
export async function watchLoop(p: Promise<unknown>, everyMs = 5): Promise<LoopWatch> {
  const t0 = performance.now();
  let last = t0;
  let lateMs = 0;
  let ticks = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    lateMs = Math.max(lateMs, now - last - everyMs);
    last = now;
    ticks++;
  }, everyMs);
  try {
    await p.catch(() => undefined);
  } finally {
    clearInterval(tick);
  }
  const end = performance.now();
  // the stretch since the last tick counts too (a stall just before `p` settled)
  lateMs = Math.max(lateMs, end - last - everyMs);
  return { tookMs: end - t0, lateMs: Math.max(0, lateMs), ticks };
}
