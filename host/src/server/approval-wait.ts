// While a call waits for a person its client must not give up on it: MCP clients time a request
// out (the SDK's and the Inspector's default is 60 s) unless progress arrives and they reset their
// timer on it. So every interval of the wait the request's progress token gets a notification
// (architecture.md §3). The values stay below 1 % of the total of 1: nothing has run yet.

/** How often a waiting call tells its client it is alive. */
export const ASK_PROGRESS_MS = 15_000;

export type SendProgress = (progress: number, message: string) => Promise<void>;

/** For CallOptions.onApprovalWait: starts the notifications; the returned function stops them. */
export function askKeepAlive(send: SendProgress, intervalMs: number): () => () => void {
  return () => {
    const started = performance.now();
    let n = 0;
    const timer = setInterval(() => {
      n += 1;
      const waited = Math.round((performance.now() - started) / 1000);
      void send((0.01 * n) / (n + 1), `waiting for approval (${waited} s)`);
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}
