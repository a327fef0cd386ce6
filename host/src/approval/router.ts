// The approval service the pipeline talks to. It routes each request: first a channel registered
// for that very call (e.g. MCP elicitation), then the base service the runtime was built with (an
// embedder's or the server's own choice), then the channels the policy set configured, in order.
// The first answer other than 'unavailable' stands; no channel, or only broken ones, means
// 'unavailable', which denies.
import type { ApprovalOutcome, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { isApprovalOutcome } from './outcome.js';

/**
 * What the MCP server implements to ask through elicitation: an ApprovalService for one call,
 * registered with `router.register(callId, service)` before the call and removed after it.
 */
export type ElicitationApproval = ApprovalService;

export class ApprovalRouter implements ApprovalService {
  readonly #perCall = new Map<string, ApprovalService>();
  /** Every active useChannels() registration; the newest one serves. */
  #stack: { channels: readonly ApprovalService[] }[] = [];
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
   * Makes `channels` the configured ones until the returned function runs. Registrations stack:
   * during a policy reload the new set's channels serve, and undoing the old set's changes nothing.
   */
  useChannels(channels: readonly ApprovalService[]): () => void {
    const token = { channels: [...channels] };
    this.#stack.push(token);
    return () => {
      this.#stack = this.#stack.filter((t) => t !== token);
    };
  }

  get #channels(): readonly ApprovalService[] {
    return this.#stack[this.#stack.length - 1]?.channels ?? [];
  }

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    const routed = this.#perCall.get(req.exec.callId);
    const chain = [...(routed ? [routed] : []), ...(this.base && this.base !== this ? [this.base] : []), ...this.#channels];
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
      if (isApprovalOutcome(outcome) && outcome !== 'unavailable') return outcome;
    }
    return 'unavailable';
  }
}
