// A call lives only as long as the client that asked for it (architecture.md §3). Each transport
// says when a request's client is gone; the call is then cancelled, which withdraws a pending ask
// (it leaves the queue and /ui, the audit record says why) before the tool ever runs.
import type { ServerResponse } from 'node:http';
import { ClientGone } from '../approval/index.js';
import { ownedAbort, whenAborted, type OwnedAbort } from '../signals/index.js';

type RequestId = string | number;

/** One call's link to its client. */
export interface CallLink {
  /** Fires (with a ClientGone) when the call's client is gone: pass it as the call's signal. */
  readonly signal: AbortSignal;
  /** For CallOptions.onApprovalWait: marks the call as waiting for a person until the function runs. */
  waiting(): () => void;
  /** Aborts `signal` with `reason` (the first reason stands): CallTracker.run's abortOwn. */
  readonly abort: (reason: unknown) => void;
  /** The client cancelled the request or its session closed: aborts `signal` with a ClientGone. */
  readonly clientGone: () => void;
  unlink(): void;
}

const CANCELLED_OR_CLOSED = 'it cancelled the request or its session closed';

interface Entry {
  readonly stop: OwnedAbort;
  asking: boolean;
}

/** The calls of one MCP session (stdio: the process's one; HTTP: one per session) by JSON-RPC request id. */
export class ClientLinks {
  readonly #calls = new Map<RequestId, Entry>();
  #gone: ClientGone | undefined;

  /**
   * `sdkSignal` is the SDK's for the request: it fires on the client's notifications/cancelled
   * and when the session closes, both the client going away. Without it (the stdio direct path,
   * direct-call.ts) whoever took the request calls `clientGone` on the link for those.
   */
  link(id: RequestId, sdkSignal?: AbortSignal): CallLink {
    const entry: Entry = { stop: ownedAbort(), asking: false };
    const gone = () => entry.stop.abort(new ClientGone(CANCELLED_OR_CLOSED));
    let unrelay: () => void = () => {};
    if (sdkSignal?.aborted === true) gone();
    else if (sdkSignal !== undefined) unrelay = whenAborted(sdkSignal, gone);
    this.#calls.set(id, entry);
    return {
      signal: entry.stop.signal,
      waiting: () => {
        entry.asking = true;
        if (this.#gone !== undefined) entry.stop.abort(this.#gone);
        return () => {
          entry.asking = false;
        };
      },
      abort: (reason) => entry.stop.abort(reason),
      clientGone: gone,
      unlink: () => {
        unrelay();
        if (this.#calls.get(id) === entry) this.#calls.delete(id);
      },
    };
  }

  /** No one reads these requests' answers any more (their response stream closed): their calls are cancelled. */
  requestsGone(ids: readonly RequestId[], why: ClientGone): void {
    for (const id of ids) this.#calls.get(id)?.stop.abort(why);
  }

  /**
   * The client is gone for good (stdin closed). Asks, now or later, are withdrawn; a tool already
   * running finishes, since its answer can still be written (serve drains before it exits).
   */
  clientGone(why: ClientGone): void {
    this.#gone = why;
    for (const entry of this.#calls.values()) if (entry.asking) entry.stop.abort(why);
  }
}

/** The ids of the JSON-RPC requests in a body (one message or a batch). */
export function requestIds(body: unknown): RequestId[] {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || !('method' in m) || !('id' in m)) continue;
    const id: unknown = m.id;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return ids;
}

/** Runs `fn` when the connection closes before the response was written in full. */
export function onResponseGone(res: ServerResponse, fn: () => void): void {
  res.once('close', () => {
    if (!res.writableFinished) fn();
  });
}
