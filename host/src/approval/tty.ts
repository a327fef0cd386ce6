// Asks the person at the terminal: tool, reason and arguments, then y/N. Only when input is a TTY
// (a pipe or CI has nobody to answer, so it says 'unavailable'). Prompts go one at a time.
import type { ApprovalOutcome, ApprovalReply, ApprovalRequest, ApprovalService } from '../pipeline/index.js';
import { argumentsPreview } from './outcome.js';
import { AnsweredElsewhere } from './router.js';
import { spellHidden } from '../terminal/index.js';

/** Who answered, as the audit log records it. */
export const TTY_ANSWERER = 'tty: the terminal';

export interface TtyChannelOptions {
  input: NodeJS.ReadableStream;
  /** Where the prompt goes: a stream, or `{ write: io.stderr }` from a CLI command. */
  output: { write(text: string): unknown };
  /** True only when a person can answer (process.stdin.isTTY). */
  isTTY: boolean;
}

export class TtyApprovalChannel implements ApprovalService {
  readonly #opts: TtyChannelOptions;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: TtyChannelOptions) {
    this.#opts = options;
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    if (!this.#opts.isTTY) return Promise.resolve('unavailable');
    const mine = this.#turn.then(() => this.#ask(req, signal));
    this.#turn = mine.catch(() => undefined);
    return mine;
  }

  #ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome | ApprovalReply> {
    if (signal.aborted) return Promise.resolve('cancelled');
    const { input, output } = this.#opts;
    const agent = req.exec.agent !== undefined ? `\n  agent:     ${req.exec.agent}` : '';
    // Every hidden character spelled out, whatever writer `output` is: an argument that reads
    // "safe-value" may go on invisibly (docs/architecture.md, "Text shown to people").
    output.write(
      `${spellHidden(
        `\ntoolgate: approval needed (${req.decidedBy})\n  tool:      ${req.exec.name}${agent}\n` +
          `  reason:    ${req.reason}\n  arguments: ${argumentsPreview(req.exec.arguments)}\n`,
      )}Allow this call once? [y/N] `,
    );
    return new Promise<ApprovalOutcome | ApprovalReply>((resolve) => {
      let buffered = '';
      const finish = (outcome: ApprovalOutcome | ApprovalReply): void => {
        input.removeListener('data', onData);
        input.removeListener('end', onEnd);
        signal.removeEventListener('abort', onAbort);
        input.pause();
        resolve(outcome);
      };
      const onData = (chunk: Buffer | string): void => {
        buffered += chunk.toString();
        const nl = buffered.indexOf('\n');
        if (nl === -1) return;
        finish({
          outcome: /^\s*y(es)?\s*$/i.test(buffered.slice(0, nl)) ? 'allowed-once' : 'rejected',
          answeredBy: TTY_ANSWERER,
        });
      };
      const onEnd = (): void => finish('cancelled');
      const onAbort = (): void => {
        const why: unknown = signal.reason;
        output.write(why instanceof AnsweredElsewhere ? `\n(${why.message})\n` : '\n(approval request withdrawn)\n');
        finish('cancelled');
      };
      input.on('data', onData);
      input.once('end', onEnd);
      signal.addEventListener('abort', onAbort, { once: true });
      input.resume();
    });
  }
}
