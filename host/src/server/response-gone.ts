// A call lives only as long as the client that asked for it (architecture.md §3). Each transport
// says when a request's client is gone; the call is then cancelled, which withdraws a pending ask
// (it leaves the queue and /ui, the audit record says why) before the tool ever runs.
import type { ServerResponse } from 'node:http';
import { ClientGone } from '../approval/index.js';
import { LazyAbort, whenAborted } from '../signals/index.js';

type RequestId = string | number;

/** One call's link to its client. */
export interface CallLink {
  /** Fires (with a ClientGone) when the call's client is gone: pass it as the call's signal. */
  readonly signal: AbortSignal;
  /** `signal`'s owner, whose AbortSignal is made only when read: the pipeline's CallOptions.cancel. */
  readonly cancel: LazyAbort;
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
  readonly stop: LazyAbort;
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
    const entry: Entry = { stop: new LazyAbort(), asking: false };
    const link = new Link(this, id, entry);
    if (sdkSignal?.aborted === true) link.clientGone();
    else if (sdkSignal !== undefined) link.unrelay = whenAborted(sdkSignal, link.clientGone);
    this.#calls.set(id, entry);
    return link;
  }

  /** A link's end: its entry leaves the table unless a later request took the id. */
  forget(id: RequestId, entry: Entry): void {
    if (this.#calls.get(id) === entry) this.#calls.delete(id);
  }

  /** The client is gone for good (clientGone), if it is. */
  get gone(): ClientGone | undefined {
    return this.#gone;
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

/**
 * One call's link, a class rather than an object of closures: a call makes one, and its signal is
 * made only when read (LazyAbort; docs/decisions.md "Server CPU per call, sixth round").
 */
class Link implements CallLink {
  unrelay: () => void = noop;
  readonly #links: ClientLinks;
  readonly #id: RequestId;
  readonly #entry: Entry;

  constructor(links: ClientLinks, id: RequestId, entry: Entry) {
    this.#links = links;
    this.#id = id;
    this.#entry = entry;
  }

  get signal(): AbortSignal {
    return this.#entry.stop.signal;
  }

  get cancel(): LazyAbort {
    return this.#entry.stop;
  }

  waiting(): () => void {
    const entry = this.#entry;
    entry.asking = true;
    const gone = this.#links.gone;
    if (gone !== undefined) entry.stop.abort(gone);
    return () => {
      entry.asking = false;
    };
  }

  readonly abort = (reason: unknown): void => this.#entry.stop.abort(reason);

  readonly clientGone = (): void => this.#entry.stop.abort(new ClientGone(CANCELLED_OR_CLOSED));

  unlink(): void {
    this.unrelay();
    this.#links.forget(this.#id, this.#entry);
  }
}

const noop = (): void => {};

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
