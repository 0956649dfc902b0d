/**
 * Records keyed by names that users choose (plans, paths, symbols, sections,
 * roles, workers…), kept as plain objects so that they survive JSON and
 * structured clone. Only their own keys count: `record[key]` would find
 * Object.prototype's members for `constructor` or `toString`, `key in record`
 * too, and assigning `record['__proto__']` replaces the prototype instead of
 * adding a key. Read with `ownValue` / `hasOwnKey`, write with `setOwn`, or
 * `withOwn` for a copy (a decider's `evolve`).
 */
export type Keyed<T> = Record<string, T>;

/** The value stored under `key` itself, never one inherited from Object.prototype. */
export function ownValue<T>(record: Keyed<T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `key` is stored in the record (not inherited). */
export function hasOwnKey(record: Keyed<unknown>, key: string): boolean {
  return Object.hasOwn(record, key);
}

/** Stores `value` under `key` as an own property, `__proto__` included. */
export function setOwn<T>(record: Keyed<T>, key: string, value: T): void {
  Object.defineProperty(record, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** A copy of `record` with `value` under `key` as an own key (`setOwn`'s immutable form). */
export function withOwn<T>(record: Keyed<T>, key: string, value: NoInfer<T>): Keyed<T> {
  const copy = { ...record };
  setOwn(copy, key, value);
  return copy;
}
