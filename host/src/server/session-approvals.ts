// Routes an `ask` to the client that made the call. The pipeline knows only the callId; the server
// generates that id, binds it to its MCP session here (before calling, or, for a session's
// tools/call, when a person is first asked: mcp-server.ts), and unbinds it after the call.
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';

/** What the session that owns a call can do for an approval. */
export interface CallRoute {
  /** The MCP session id (undefined over stdio and the plain HTTP API). */
  readonly sessionId: string | undefined;
  /** Present when the client declared elicitation: asks its user, resolves the outcome. */
  readonly elicit?: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalOutcome>;
}

/** A router that takes per-call channels (the approval door's ApprovalRouter fits this). */
export interface PerCallRouter {
  register(callId: string, service: ApprovalService): () => void;
}

export class SessionApprovals implements ApprovalService {
  readonly #routes = new Map<string, CallRoute>();
  /** Calls whose request is inside the fallback now: a fallback that asks us back gets 'unavailable'. */
  readonly #inFallback = new Set<string>();
  /** The configured approval channel for clients that cannot elicit. */
  fallback: ApprovalService | undefined;
  /**
   * When a policy set puts its own router in front of us, each call's elicitation is registered
   * there too, so it is asked before the configured channels (the person at the client first).
   */
  router: PerCallRouter | undefined;

  constructor(options: { fallback?: ApprovalService; router?: PerCallRouter } = {}) {
    this.fallback = options.fallback;
    this.router = options.router;
  }

  /** Returns the unbind function; a call must unbind when it ends so the map cannot grow. */
  bind(callId: string, route: CallRoute): () => void {
    let bound = route;
    let unregister: () => void = () => {};
    if (route.elicit !== undefined) {
      // One form per call, whoever asks first (the router or the pipeline through us).
      const ask = route.elicit;
      let asked: Promise<ApprovalOutcome> | undefined;
      const once = (req: ApprovalRequest, signal: AbortSignal) => (asked ??= ask(req, signal));
      bound = { sessionId: route.sessionId, elicit: once };
      if (this.router !== undefined) unregister = this.router.register(callId, { request: once });
    }
    this.#routes.set(callId, bound);
    return () => {
      unregister();
      if (this.#routes.get(callId) === bound) this.#routes.delete(callId);
    };
  }

  routeOf(callId: string): CallRoute | undefined {
    return this.#routes.get(callId);
  }

  get size(): number {
    return this.#routes.size;
  }

  /** Elicitation first (the person at the client that asked), then the fallback, else no one. */
  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    const id = req.exec.callId;
    const route = this.#routes.get(id);
    if (route?.elicit !== undefined) {
      const outcome = await route.elicit(req, signal);
      if (outcome !== 'unavailable') return outcome;
    }
    if (this.fallback === undefined || this.#inFallback.has(id)) return 'unavailable';
    this.#inFallback.add(id);
    try {
      return await this.fallback.request(req, signal);
    } finally {
      this.#inFallback.delete(id);
    }
  }
}
