/**
 * A small tagged template over `ctx.storage.sql.exec`: values become bound
 * parameters, never string fragments.
 */
export type SqlValue = string | number | null | ArrayBuffer;

export function sqlOf(storage: SqlStorage) {
  return function sql<T extends Record<string, SqlStorageValue>>(
    strings: TemplateStringsArray,
    ...values: SqlValue[]
  ): T[] {
    return storage.exec<T>(strings.join('?'), ...values).toArray();
  };
}

export type Sql = ReturnType<typeof sqlOf>;
