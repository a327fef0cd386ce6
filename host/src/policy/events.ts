// What a policy set tells the server: a new set is serving ('changed' -> tools/list_changed), or a
// reload was refused and the old set stays ('rejected').

export type PolicyEvent =
  | { type: 'changed'; dir: string; generation: number; entries: string[] }
  | { type: 'rejected'; dir: string; error: string };

type Listener<T extends PolicyEvent['type']> = (event: Extract<PolicyEvent, { type: T }>) => void;

export class PolicyEvents {
  readonly #listeners = new Map<PolicyEvent['type'], Set<(e: PolicyEvent) => void>>();

  on<T extends PolicyEvent['type']>(type: T, fn: Listener<T>): () => void {
    let set = this.#listeners.get(type);
    if (!set) {
      set = new Set();
      this.#listeners.set(type, set);
    }
    const wrapped = (e: PolicyEvent): void => fn(e as Extract<PolicyEvent, { type: T }>);
    set.add(wrapped);
    return () => void set.delete(wrapped);
  }

  emit(event: PolicyEvent): void {
    for (const fn of this.#listeners.get(event.type) ?? []) {
      try {
        fn(event);
      } catch {
        // a listener's failure must not undo a reload
      }
    }
  }
}
