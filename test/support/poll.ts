// Polling instead of fixed sleeps: a test waits for the state its rule is about, never for a guess
// of how long that takes on a loaded machine.

/** Resolves once `cond` holds (checked every 5 ms); fails naming `what` after `ms`. */
export async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
