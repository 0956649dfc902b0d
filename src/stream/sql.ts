/**
 * A small tagged template over `ctx.storage.sql.exec`: values become bound
 * parameters, never string fragments.
 */
export type SqlValue = string | number | null | ArrayBuffer;

/**
 * The query text of each call site, built once. workerd keeps prepared
 * statements in a cache keyed by query text; handing it the same string
 * object every time makes that lookup an identity compare instead of
 * hashing and comparing a fresh string per statement.
 */
const texts = new WeakMap<TemplateStringsArray, string>();

export function sqlOf(storage: SqlStorage) {
  return function sql<T extends Record<string, SqlStorageValue>>(
    strings: TemplateStringsArray,
    ...values: SqlValue[]
  ): T[] {
    let text = texts.get(strings);
    if (text === undefined) {
      text = strings.join('?');
      texts.set(strings, text);
    }
    return storage.exec<T>(text, ...values).toArray();
  };
}

export type Sql = ReturnType<typeof sqlOf>;

/**
 * A fixed query text as a one-piece template, for queries a test inspects:
 * `sql(fixed(TEXT), …values)` binds `?` placeholders in TEXT, and the test can
 * run `EXPLAIN QUERY PLAN` on the very same TEXT.
 */
export function fixed(text: string): TemplateStringsArray {
  return Object.assign([text], { raw: [text] }) as unknown as TemplateStringsArray;
}
