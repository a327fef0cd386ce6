// What the stores that replicas share need from the store under them: atomic scripts, plain
// commands, and messages to the other replicas. A store that cannot reach it throws
// StateUnavailable, and its caller fails closed (an ask is denied, a rate-limited call refused).
import { ToolgateError } from '../errors/index.js';

/** The shared store is down or did not answer in time; whatever needed it is refused. */
export class StateUnavailable extends ToolgateError<'STATE_UNAVAILABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STATE_UNAVAILABLE', message, options);
  }
}

/** A message published to every replica (JSON text on one channel). */
export type StateMessage = Record<string, unknown>;

export interface SharedState {
  /** This process's own id: the replica a pending ask or a running task is held by. */
  readonly replica: string;
  /** Where it is, without credentials (for messages). */
  readonly shown: string;
  /** Connected now; false while the store is down (commands then throw StateUnavailable at once). */
  readonly ready: boolean;
  /** One command, e.g. ['SET', key, value, 'NX', 'PX', '1000']. */
  command(args: readonly string[]): Promise<unknown>;
  /** A Lua script run atomically in the store. */
  script(lua: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** Sends `message` on `channel` to every replica (this one too). */
  publish(channel: string, message: StateMessage): Promise<void>;
  /** Messages on `channel` from every replica; the function unsubscribes. */
  subscribe(channel: string, fn: (message: StateMessage) => void): () => void;
  /** Called whenever the store goes down (`false`) or comes back (`true`); the function unsubscribes. */
  onStatus(fn: (ready: boolean) => void): () => void;
  close(): Promise<void>;
}
