import { afterAll, beforeAll } from 'vitest';

/**
 * Something the tests of one file share: opened in `beforeAll` (after any
 * registered earlier) and made ready there, closed in `afterAll`, and closed
 * at once if getting it ready fails. Read the function it returns inside the
 * tests; before `beforeAll` has run it throws, saying `what` starts where.
 */
export function forFile<R, T>(
  what: string,
  open: () => Promise<R>,
  close: (opened: R) => Promise<void>,
  ready: (opened: R) => Promise<T>,
  timeoutMs: number,
): () => { readonly opened: R; readonly ready: T } {
  let opened: R | undefined;
  let value: { opened: R; ready: T } | undefined;
  beforeAll(async () => {
    opened = await open();
    value = { opened, ready: await ready(opened) };
  }, timeoutMs);
  afterAll(async () => {
    if (opened !== undefined) await close(opened);
  });
  return () => {
    if (!value) throw new Error(`${what} starts in beforeAll`);
    return value;
  };
}
