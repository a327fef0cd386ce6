// One call's budgets inside a worker, shared by both runner kinds (architecture.md §4, "sizes"): the
// log lines and bytes a call may write, and the host memory it may take (responses, config and var
// values, Extism blocks). Reset before each call; what was dropped is reported once after it.

export interface BudgetLimits {
  readonly maxLogLines: number;
  readonly maxLogBytes: number;
  readonly allocBudget: number;
}

export class CallBudget {
  #allocated = 0;
  #logLines = 0;
  #logBytes = 0;
  #logDropped = 0;

  constructor(private readonly limits: BudgetLimits) {}

  reset(): void {
    this.#allocated = 0;
    this.#logLines = 0;
    this.#logBytes = 0;
    this.#logDropped = 0;
  }

  /** Counts one log line of `size` bytes; false (and one more dropped) when over the call's budget. */
  takeLog(size: number): boolean {
    if (this.#logLines >= this.limits.maxLogLines || this.#logBytes + size > this.limits.maxLogBytes) {
      this.#logDropped++;
      return false;
    }
    this.#logLines++;
    this.#logBytes += size;
    return true;
  }

  /** Counts host memory `what` takes: undefined when it fits, else why it is refused (nothing counted). */
  charge(size: number, what: string): string | undefined {
    if (!(size >= 0) || this.#allocated + size > this.limits.allocBudget) {
      return `${what} of ${size} bytes refused: this call may allocate ${this.limits.allocBudget} bytes of host memory (${this.#allocated} used)`;
    }
    this.#allocated += size;
    return undefined;
  }

  /** The one "N log lines dropped" notice of a call, if any were, then the count starts again. */
  reportDropped(log: (level: 'warn', text: string) => void): void {
    if (this.#logDropped > 0) log('warn', `${this.#logDropped} log lines dropped`);
    this.#logDropped = 0;
  }
}
