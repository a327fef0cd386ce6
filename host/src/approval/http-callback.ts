// Asks a remote service: POST the request as JSON to a configured URL; the response body
// {outcome} decides. Anything else (network error, timeout, non-2xx, bad body) is 'unavailable'.
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { loadUndici } from '../lazy-undici/index.js';
import type { ApprovalOutcome, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { APPROVAL_OUTCOMES, approvalSummary } from './outcome.js';

export interface HttpChannelOptions {
  url: string;
  /** Per request; the pipeline's own approval timeout still applies above it. Default 30 s. */
  timeoutMs?: number;
  headers?: Record<string, string>;
  dispatcher?: Dispatcher;
  onError?: (err: unknown) => void;
}

const MAX_BODY = 64 * 1024;
/** The service's answer, built on the first one (docs/decisions.md, "Less code and fewer schemas on serve's start"). */
const buildAnswer = () => z.object({ outcome: z.enum(APPROVAL_OUTCOMES) });
let answer: ReturnType<typeof buildAnswer> | undefined;
const Answer = (): ReturnType<typeof buildAnswer> => (answer ??= buildAnswer());

export class HttpApprovalChannel implements ApprovalService {
  readonly #opts: HttpChannelOptions;

  constructor(options: HttpChannelOptions) {
    const url = new URL(options.url); // throws on a bad URL at configuration time
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`approval callback URL must be http(s): ${options.url}`);
    this.#opts = options;
  }

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    const body = approvalSummary(req);
    const timeout = AbortSignal.timeout(this.#opts.timeoutMs ?? 30_000);
    try {
      // undici loads on the first ask, not when a policy set that merely names this channel mounts.
      const { request } = await loadUndici();
      const res = await request(this.#opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...this.#opts.headers },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
        ...(this.#opts.dispatcher ? { dispatcher: this.#opts.dispatcher } : {}),
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        size += b.length;
        if (size > MAX_BODY) {
          res.body.destroy();
          throw new Error(`approval callback answered more than ${MAX_BODY} bytes`);
        }
        chunks.push(b);
      }
      if (res.statusCode < 200 || res.statusCode >= 300)
        throw new Error(`approval callback answered HTTP ${res.statusCode}`);
      const parsed = Answer().safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      if (!parsed.success)
        throw new Error(
          'approval callback body is not {"outcome": "allowed-once"|"rejected"|"cancelled"|"unavailable"}',
        );
      return parsed.data.outcome;
    } catch (err) {
      if (signal.aborted) return 'cancelled';
      this.#opts.onError?.(err);
      return 'unavailable';
    }
  }
}
