// The approval service the pipeline talks to. It routes each request: first a channel registered
// for that very call (e.g. MCP elicitation), then the base service the runtime was built with (an
// embedder's or the server's own choice), each in turn; then the channels the policy set
// configured, all asked together, because each is a place where a person may be looking (the
// terminal, the /ui page): the first answer other than 'unavailable' stands and the request is
// withdrawn from the others. No channel, or only ones with nobody to answer, means 'unavailable',
// which denies.
import { ToolgateError } from '../errors/index.js';
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { linkSignals } from '../pipeline/index.js';
import { isApprovalOutcome, replyOutcome } from './outcome.js';

/**
 * Why a channel's request was withdrawn: another channel answered first. Channels may read it
 * from their signal's reason to say so (the terminal prints it; the queue remembers who answered).
 */
export class AnsweredElsewhere extends ToolgateError<'ANSWERED_ELSEWHERE'> {
  readonly outcome: ApprovalOutcome;
  readonly answeredBy: string | undefined;

  constructor(outcome: ApprovalOutcome, answeredBy: string | undefined) {
    const what = outcome === 'allowed-once' ? 'allowed once' : outcome === 'rejected' ? 'denied' : outcome;
    super('ANSWERED_ELSEWHERE', `answered elsewhere: ${what}${answeredBy !== undefined ? ` by ${answeredBy}` : ''}`);
    this.outcome = outcome;
    this.answeredBy = answeredBy;
  }
}

type Answer = ApprovalOutcome | ApprovalReply;

/** The answer a channel gave, or 'unavailable' for anything that is not an outcome. */
function answerOf(v: unknown): { answer: Answer; outcome: ApprovalOutcome } {
  const plain = replyOutcome(v);
  return isApprovalOutcome(plain)
    ? { answer: v as Answer, outcome: plain }
    : { answer: 'unavailable', outcome: 'unavailable' };
}

/**
 * What the MCP server implements to ask through elicitation: an ApprovalService for one call,
 * registered with `router.register(callId, service)` before the call and removed after it.
 */
export type ElicitationApproval = ApprovalService;

export class ApprovalRouter implements ApprovalService {
  readonly #perCall = new Map<string, ApprovalService>();
  /** Every active useChannels() registration; the newest one that owns the call serves it. */
  #stack: { channels: readonly ApprovalService[]; owns: (callId: string) => boolean; timeoutMs: number | undefined }[] =
    [];
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
  useChannels(
    channels: readonly ApprovalService[],
    owns: (callId: string) => boolean = () => true,
    timeoutMs?: number,
  ): () => void {
    const token = { channels: [...channels], owns, timeoutMs };
    this.#stack.push(token);
    return () => {
      this.#stack = this.#stack.filter((t) => t !== token);
    };
  }

  #tokenFor(callId: string): { channels: readonly ApprovalService[]; timeoutMs: number | undefined } | undefined {
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      const t = this.#stack[i];
      if (t?.owns(callId)) return t;
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

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<Answer> {
    const routed = this.#perCall.get(req.exec.callId);
    const inTurn = [...(routed ? [routed] : []), ...(this.base && this.base !== this ? [this.base] : [])];
    // Once the pipeline gives up (timeout, caller cancel) we answer with its abort, not a channel's
    // 'cancelled', so the denial says what really happened.
    const gaveUp = (): unknown => signal.reason ?? new Error('approval aborted');
    for (const channel of inTurn) {
      if (signal.aborted) throw gaveUp();
      const got = await this.#ask(channel, req, signal);
      if (signal.aborted) throw gaveUp();
      if (got.outcome !== 'unavailable') return got.answer;
    }
    const together = this.#channelsFor(req.exec.callId);
    if (together.length === 0) return 'unavailable';
    if (signal.aborted) throw gaveUp();
    const answer = await this.#askTogether(together, req, signal);
    if (signal.aborted) throw gaveUp();
    return answer;
  }

  /** One channel's answer; a channel that throws counts as 'unavailable'. */
  async #ask(
    channel: ApprovalService,
    req: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<{ answer: Answer; outcome: ApprovalOutcome }> {
    try {
      return answerOf(await channel.request(req, signal));
    } catch (err) {
      if (!signal.aborted) this.#onError(err);
      return { answer: 'unavailable', outcome: 'unavailable' };
    }
  }

  /** Every channel at once; the first real answer wins and the others are withdrawn. */
  #askTogether(channels: readonly ApprovalService[], req: ApprovalRequest, signal: AbortSignal): Promise<Answer> {
    const withdraw = new AbortController();
    const linked = linkSignals([signal, withdraw.signal]);
    return new Promise<Answer>((resolve) => {
      let left = channels.length;
      let done = false;
      for (const channel of channels) {
        void this.#ask(channel, req, linked.signal).then((got) => {
          if (done) return;
          if (got.outcome !== 'unavailable') {
            done = true;
            const by = typeof got.answer === 'object' ? got.answer.answeredBy : undefined;
            withdraw.abort(new AnsweredElsewhere(got.outcome, by));
            resolve(got.answer);
          } else if (--left === 0) {
            done = true;
            resolve('unavailable');
          }
        });
      }
    }).finally(linked.release);
  }
}
