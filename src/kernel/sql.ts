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
 * One schema version per capability (a kind runner, an outbox, a log…), as
 * the Agents SDK keeps one per feature: `migrate(from)` runs only when the
 * stored version of `capability` is below `version` (0 for a new object),
 * then the new version is recorded. Both happen in the caller's synchronous
 * stretch, which a Durable Object commits as one unit, so a crash leaves the
 * old version and the migration runs again. Migrations are written to be
 * safe to re-run (`IF NOT EXISTS`), so objects created before the gate
 * existed pass through them unharmed.
 */
export function schemaGate(
  sql: Sql,
  capability: string,
  version: number,
  migrate: (from: number) => void,
): void {
  sql`CREATE TABLE IF NOT EXISTS schema_versions (
    capability TEXT PRIMARY KEY,
    version INTEGER NOT NULL
  )`;
  const from =
    sql<{ version: number }>`SELECT version FROM schema_versions
      WHERE capability = ${capability}`[0]?.version ?? 0;
  if (from >= version) return;
  migrate(from);
  sql`INSERT OR REPLACE INTO schema_versions (capability, version) VALUES (${capability}, ${version})`;
}

/**
 * A fixed query text as a one-piece template, for queries a test inspects:
 * `sql(fixed(TEXT), …values)` binds `?` placeholders in TEXT, and the test can
 * run `EXPLAIN QUERY PLAN` on the very same TEXT.
 */
export function fixed(text: string): TemplateStringsArray {
  return Object.assign([text], { raw: [text] }) as unknown as TemplateStringsArray;
}

/**
 * SQLite cannot drop a constraint in place. When `table`'s stored definition
 * still contains `outdated`, its rows move into the table `create` makes
 * under the same name, in one transaction. Columns the old table has and
 * `create` does not (added later by `ALTER TABLE`, perhaps by another owner)
 * are added back first, so every value is kept. The old table's indexes go
 * with it: create indexes after calling this. `table` is a fixed identifier
 * from the caller, never input.
 */
export function rebuildIfOutdated(
  storage: DurableObjectStorage,
  table: string,
  outdated: string,
  create: () => void,
): boolean {
  const sql = sqlOf(storage.sql);
  const stored = sql<{ sql: string }>`SELECT sql FROM sqlite_master
    WHERE type = 'table' AND name = ${table}`[0]?.sql;
  if (stored === undefined || !stored.includes(outdated)) return false;
  type Column = { name: string; type: string; notnull: number; dflt_value: string | null };
  const columnsOf = (name: string) =>
    storage.sql.exec<Column>(`PRAGMA table_info(${name})`).toArray();
  storage.transactionSync(() => {
    const old = `${table}_outdated`;
    storage.sql.exec(`ALTER TABLE ${table} RENAME TO ${old}`);
    create();
    const fresh = new Set(columnsOf(table).map((c) => c.name));
    const columns = columnsOf(old);
    for (const c of columns.filter((c) => !fresh.has(c.name))) {
      const notNull = c.notnull && c.dflt_value !== null ? ' NOT NULL' : '';
      const fallback = c.dflt_value !== null ? ` DEFAULT ${c.dflt_value}` : '';
      storage.sql.exec(`ALTER TABLE ${table} ADD COLUMN ${c.name} ${c.type}${notNull}${fallback}`);
    }
    const list = columns.map((c) => c.name).join(', ');
    storage.sql.exec(`INSERT INTO ${table} (${list}) SELECT ${list} FROM ${old}`);
    storage.sql.exec(`DROP TABLE ${old}`);
  });
  return true;
}
