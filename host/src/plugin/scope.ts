// A list of undo actions. Disposing runs them newest-first; every registration is removed at once
// (synchronously), and asynchronous cleanups such as a tool's dispose() are awaited together.
// disposeInTurn() instead awaits each before the next, for resources that depend on one another.
import type { Logger } from 'pino';
import type { Disposer } from '../tool/index.js';

export class Scope {
  #effects: { fn: Disposer; label: string }[] = [];
  #disposed = false;
  #closing: Promise<void> | undefined;
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Records an undo action; the returned function runs it early (once) and forgets it. */
  add(label: string, fn: Disposer): () => Promise<void> {
    if (this.#disposed) {
      // Too late to record: undo now so nothing outlives a disposed plugin.
      void this.#run({ fn, label });
      throw new Error(`${label}: this plugin has been disposed; it can register nothing more`);
    }
    const entry = { fn, label };
    this.#effects.push(entry);
    let ran = false;
    return () => {
      if (ran) return Promise.resolve();
      ran = true;
      this.#effects = this.#effects.filter((e) => e !== entry);
      return this.#run(entry);
    };
  }

  dispose(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#disposed = true;
    const pending: Promise<void>[] = [];
    for (const entry of this.#effects.reverse()) pending.push(this.#run(entry));
    this.#effects = [];
    this.#closing = Promise.all(pending).then(() => undefined);
    return this.#closing;
  }

  /**
   * Like dispose(), but each undo action starts only once the newer one has finished: for resources
   * released in turn, where an older one serves a newer one until it is gone (a server's transport
   * closes before the tools it serves are disposed).
   */
  disposeInTurn(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#disposed = true;
    const effects = this.#effects.reverse();
    this.#effects = [];
    this.#closing = (async () => {
      for (const entry of effects) await this.#run(entry);
    })();
    return this.#closing;
  }

  /** Never throws: a failing undo is logged so the rest still runs. */
  #run(entry: { fn: Disposer; label: string }): Promise<void> {
    try {
      const r = entry.fn();
      if (r instanceof Promise) {
        return r.catch((err: unknown) => this.#log.warn({ err }, `undo of ${entry.label} failed`));
      }
    } catch (err) {
      this.#log.warn({ err }, `undo of ${entry.label} failed`);
    }
    return Promise.resolve();
  }
}
