// Which policy set serves which call. A call is pinned to the set that is current when it is first
// seen (the loader's own pre-execute listener, first in the chain) and keeps it through every later
// stage, so no call ever runs half under one set and half under another. A set that was swapped
// out stops taking new calls at once and is disposed when its last pinned call has finished.
import type { PluginHandle } from '../plugin/index.js';

export class PolicySet {
  readonly generation: number;
  readonly entries: readonly string[];
  handle: PluginHandle | undefined;
  /** Removes this set's listeners from the hooks (running calls keep their snapshot). */
  readonly offs: (() => void)[] = [];
  pins = 0;
  retired = false;

  constructor(generation: number, entries: readonly string[]) {
    this.generation = generation;
    this.entries = entries;
  }
}

export class SetSwitch {
  #current: PolicySet | undefined;
  /** callId -> its set, and how many calls with that id are running (callers may reuse ids). */
  readonly #pins = new Map<string, { set: PolicySet; calls: number }>();
  readonly #onDispose: (set: PolicySet) => void;

  constructor(onDispose: (set: PolicySet) => void) {
    this.#onDispose = onDispose;
  }

  get current(): PolicySet | undefined {
    return this.#current;
  }

  get pinned(): number {
    return this.#pins.size;
  }

  /** A call starts: pin it to the current set (or count it in, if its id is already pinned). */
  enter(callId: string): void {
    const pin = this.#pins.get(callId) ?? this.#pin(callId);
    if (pin !== undefined) pin.calls++;
  }

  /**
   * The set serving `callId`, pinning the current one on first sight (a deadline rule asks before
   * the call is entered; enter() then counts that same pin once).
   */
  pinFor(callId: string): PolicySet | undefined {
    return (this.#pins.get(callId) ?? this.#pin(callId))?.set;
  }

  /** The set serving `callId`, or undefined when the call is not pinned (never pins). */
  setOf(callId: string): PolicySet | undefined {
    return this.#pins.get(callId)?.set;
  }

  /** A call finished. */
  leave(callId: string): void {
    const pin = this.#pins.get(callId);
    if (pin === undefined) return;
    pin.calls--;
    if (pin.calls > 0) return;
    // calls 0 or below: a pin taken by pinFor() for a call that never entered also ends here.
    this.#pins.delete(callId);
    pin.set.pins--;
    if (pin.set.retired && pin.set.pins === 0) this.#onDispose(pin.set);
  }

  #pin(callId: string): { set: PolicySet; calls: number } | undefined {
    const set = this.#current;
    if (set === undefined) return undefined;
    const pin = { set, calls: 0 };
    this.#pins.set(callId, pin);
    set.pins++;
    return pin;
  }

  /** Makes `next` current in one step; the old set retires. */
  swap(next: PolicySet): void {
    const old = this.#current;
    this.#current = next;
    if (old !== undefined) this.retire(old);
  }

  retire(set: PolicySet): void {
    if (set.retired) return;
    set.retired = true;
    if (this.#current === set) this.#current = undefined;
    for (const off of set.offs.splice(0)) off();
    if (set.pins === 0) this.#onDispose(set);
  }
}
