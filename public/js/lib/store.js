// A value that components and plain code can both watch: the connection badge
// reads what the live feed writes, whichever view owns the feed.
import { useEffect, useState } from './ui.js';

/** @template T @param {T} initial */
export function createStore(initial) {
  let value = initial;
  const listeners = new Set();
  return {
    get: () => value,
    /** @param {T} next */
    set(next) {
      value = next;
      for (const listener of listeners) listener(value);
    },
    /** @param {(value: T) => void} listener @returns {() => void} */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The store's current value, re-rendering the component when it changes. */
export function useStore(store) {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
