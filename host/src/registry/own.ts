/**
 * The entry a document names `key`, own properties only. Names come from outside (an index, a
 * lockfile, a ref typed by a person), and a plain object answers `constructor`, `toString` or
 * `__proto__` from its prototype: an index naming a tool `constructor` must be "not found", not a
 * crash on Object's constructor.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
