// Routes an `ask` to the client that made the call. The pipeline knows only the callId; the server
// generates that id, binds it to its MCP session here before calling, and unbinds it after.
import type { ApprovalOutcome, ApprovalRequest, ApprovalService } from '../pipeline/index.js';

/** What the session that owns a call can do for an approval. */
export interface CallRoute {
  /** The MCP session id (undefined over stdio and the plain HTTP API). */
  readonly sessionId: string | undefined;
  /** Present when the client declared elicitation: asks its user, resolves the outcome. */
  readonly elicit?: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalOutcome>;
}

export class SessionApprovals implements ApprovalService {
  readonly #routes = new Map<string, CallRoute>();
  /** Calls whose request is inside the fallback now: a fallback that asks us back gets 'unavailable'. */
  readonly #inFallback = new Set<string>();
  /** The configured approval channel (e.g. the policy engine's queue) for clients that cannot elicit. */
  fallback: ApprovalService | undefined;

  constructor(fallback?: ApprovalService) {
    this.fallback = fallback;
  }

  /** Returns the unbind function; a call must unbind when it ends so the map cannot grow. */
  bind(callId: string, route: CallRoute): () => void {
    this.#routes.set(callId, route);
    return () => {
      if (this.#routes.get(callId) === route) this.#routes.delete(callId);
    };
  }

  routeOf(callId: string): CallRoute | undefined {
    return this.#routes.get(callId);
  }

  get size(): number {
    return this.#routes.size;
  }

  /** Elicitation first (the person at the client that asked), then the fallback, else no one. */
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    const route = this.#routes.get(req.exec.callId);
    if (route?.elicit !== undefined) return route.elicit(req, signal);
    const id = req.exec.callId;
    if (this.fallback === undefined || this.#inFallback.has(id)) return Promise.resolve('unavailable');
    this.#inFallback.add(id);
    return this.fallback.request(req, signal).finally(() => this.#inFallback.delete(id));
  }
}
