// Ordered listener lists per stage. Each call works on a snapshot taken when it starts, so a policy
// reload in the middle of a call cannot give that call half of the old set and half of the new.
import {
  isStage,
  type CallTally,
  type ClientRequestGuard,
  type DeadlineRule,
  type Guard,
  type Stage,
  type StageListeners,
} from './types.js';

export interface HookEntry<F> {
  readonly id: string;
  readonly fn: F;
}
export type HookSnapshot = {
  readonly [S in Stage]: readonly HookEntry<StageListeners[S]>[];
} & {
  readonly guards: readonly HookEntry<Guard>[];
  readonly deadlines: readonly HookEntry<DeadlineRule>[];
  readonly clientRequests: readonly HookEntry<ClientRequestGuard>[];
  readonly tallies: readonly HookEntry<CallTally>[];
};

type Lists = { [S in Stage]: HookEntry<StageListeners[S]>[] } & {
  guards: HookEntry<Guard>[];
  deadlines: HookEntry<DeadlineRule>[];
  clientRequests: HookEntry<ClientRequestGuard>[];
  tallies: HookEntry<CallTally>[];
};

export class Hooks {
  #lists: Lists = {
    'tools/pre-execute': [],
    'tools/execute': [],
    'tools/post-execute': [],
    'tools/result': [],
    guards: [],
    deadlines: [],
    clientRequests: [],
    tallies: [],
  };
  #snapshot: HookSnapshot | undefined;

  /** Adds a listener after those already there (registration order = run order). */
  on<S extends Stage>(stage: S, id: string, fn: StageListeners[S]): () => void {
    if (!isStage(stage)) throw new TypeError(`unknown pipeline stage ${JSON.stringify(stage)}`);
    return this.#add(stage, id, fn);
  }

  guard(id: string, fn: Guard): () => void {
    return this.#add('guards', id, fn);
  }

  /** A rule that shortens a call's deadline (the shortest one wins; none can lengthen it). */
  deadline(id: string, fn: DeadlineRule): () => void {
    return this.#add('deadlines', id, fn);
  }

  /** Judges a running tool's elicitation, sampling and roots requests; it can only deny. */
  clientRequest(id: string, fn: ClientRequestGuard): () => void {
    return this.#add('clientRequests', id, fn);
  }

  /** Told the tool's name and duration of every finished call, after its result is final. */
  tally(id: string, fn: CallTally): () => void {
    return this.#add('tallies', id, fn);
  }

  snapshot(): HookSnapshot {
    this.#snapshot ??= Object.freeze({
      'tools/pre-execute': Object.freeze([...this.#lists['tools/pre-execute']]),
      'tools/execute': Object.freeze([...this.#lists['tools/execute']]),
      'tools/post-execute': Object.freeze([...this.#lists['tools/post-execute']]),
      'tools/result': Object.freeze([...this.#lists['tools/result']]),
      guards: Object.freeze([...this.#lists.guards]),
      deadlines: Object.freeze([...this.#lists.deadlines]),
      clientRequests: Object.freeze([...this.#lists.clientRequests]),
      tallies: Object.freeze([...this.#lists.tallies]),
    });
    return this.#snapshot;
  }

  #add<K extends keyof Lists>(key: K, id: string, fn: Lists[K][number]['fn']): () => void {
    if (typeof id !== 'string' || id === '') throw new TypeError(`${key}: a listener needs a non-empty string id`);
    if (typeof fn !== 'function') throw new TypeError(`${key}: listener "${id}" must be a function`);
    const entry = Object.freeze({ id, fn });
    // Copy-on-write keeps snapshots handed to running calls untouched.
    (this.#lists[key] as unknown[]) = [...this.#lists[key], entry];
    this.#snapshot = undefined;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      (this.#lists[key] as unknown[]) = this.#lists[key].filter((e) => e !== entry);
      this.#snapshot = undefined;
    };
  }
}
