// One token bucket: `burst` tokens, refilled at `perSecond`. The worker bounds a call's notices
// with it and the manifest layer a plugin's (docs/authoring.md, "Host functions of the hyper-mcp
// interface"). Plain code, no imports: the instance worker's bundle carries it.

export interface TokenBucket {
  /** Takes one token; false when none is left (nothing taken). */
  take(): boolean;
  /** Full again. */
  refill(): void;
}

export function tokenBucket(
  burst: number,
  perSecond: number,
  now: () => number = () => performance.now(),
): TokenBucket {
  let tokens = burst;
  let at = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - at) / 1000) * perSecond);
      at = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    // A full bucket stays full however long ago it was filled (take caps at burst), so refilling
    // reads no clock: a call on the calling thread refills twice and a clock read costs ~0.1 µs.
    refill() {
      tokens = burst;
    },
  };
}
