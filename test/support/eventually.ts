/**
 * Polls `probe` every 250 ms until `done` holds; after `ms` it throws with
 * `what` of the last value (what a crash test waits for, said in its words).
 */
export async function eventually<T>(
  ms: number,
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  what: (v: T | undefined) => string,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${ms} ms: ${what(last)}`);
}
