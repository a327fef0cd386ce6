// The approval service the pipeline talks to. It routes each request: first a channel registered
// for that very call (e.g. MCP elicitation), then the base service the runtime was built with (an
// embedder's or the server's own choice), then the channels the policy set configured, in order.
// The first answer other than 'unavailable' stands; no channel, or only broken ones, means
// 'unavailable', which denies.
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { isApprovalOutcome, replyOutcome } from './outcome.js';

/**
 * What the MCP server implements to ask through elicitation: an ApprovalService for one call,
 * registered with `router.register(callId, service)` before the call and removed after it.
 */
export type ElicitationApproval = ApprovalService;

export class ApprovalRouter implements ApprovalService {
  readonly #perCall = new Map<string, ApprovalService>();
  /** Every active useChannels() registration; the newest one that owns the call serves it. */
  #stack: { channels: readonly ApprovalService[]; owns: (callId: string) => boolean; timeoutMs: number | undefined }[] = [];
  /** The service the runtime was built with, asked before the configured channels. */
  base: ApprovalService | undefined;
  readonly #onError: (err: unknown) => void;

  constructor(options: { base?: ApprovalService; onError?: (err: unknown) => void } = {}) {
    this.base = options.base;
    this.#onError = options.onError ?? (() => {});
  }

  /** Routes approval for `callId` to `service` (e.g. MCP elicitation); the function undoes it. */
  register(callId: string, service: ApprovalService): () => void {
    this.#perCall.set(callId, service);
    return () => {
      if (this.#perCall.get(callId) === service) this.#perCall.delete(callId);
    };
  }

  /**
   * Makes `channels` the configured ones for the calls `owns` accepts (default: every call) until
   * the returned function runs. A policy set passes "calls pinned to me": a call is then answered
   * only by its own set's channels, so a set without channels never borrows a retired set's queue.
   */
  useChannels(channels: readonly ApprovalService[], owns: (callId: string) => boolean = () => true, timeoutMs?: number): () => void {
    const token = { channels: [...channels], owns, timeoutMs };
    this.#stack.push(token);
    return () => {
      this.#stack = this.#stack.filter((t) => t !== token);
    };
  }

  #tokenFor(callId: string): { channels: readonly ApprovalService[]; timeoutMs: number | undefined } | undefined {
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      const t = this.#stack[i];
      if (t !== undefined && t.owns(callId)) return t;
    }
    return undefined;
  }

  #channelsFor(callId: string): readonly ApprovalService[] {
    return this.#tokenFor(callId)?.channels ?? [];
  }

  /** The answer time the channels serving this call were configured with, if any. */
  timeoutFor(req: ApprovalRequest): number | undefined {
    return this.#tokenFor(req.exec.callId)?.timeoutMs;
  }

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    const routed = this.#perCall.get(req.exec.callId);
    const chain = [...(routed ? [routed] : []), ...(this.base && this.base !== this ? [this.base] : []), ...this.#channelsFor(req.exec.callId)];
    // Once the pipeline gives up (timeout, caller cancel) we answer with its abort, not a channel's
    // 'cancelled', so the denial says what really happened.
    const gaveUp = (): unknown => signal.reason ?? new Error('approval aborted');
    for (const channel of chain) {
      if (signal.aborted) throw gaveUp();
      let outcome: unknown;
      try {
        outcome = await channel.request(req, signal);
      } catch (err) {
        if (signal.aborted) throw gaveUp();
        this.#onError(err);
        outcome = 'unavailable';
      }
      if (signal.aborted) throw gaveUp();
      const plain = replyOutcome(outcome);
      if (isApprovalOutcome(plain) && plain !== 'unavailable') return outcome as ApprovalOutcome | ApprovalReply;
    }
    return 'unavailable';
  }
}
