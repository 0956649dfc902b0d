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
    firstRow(
      SCHEMA_VERSION_ROW,
      sql`SELECT version FROM schema_versions WHERE capability = ${capability}`,
    )?.version ?? 0;
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
  const stored = firstRow(
    TABLE_SQL_ROW,
    sql`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}`,
  )?.sql;
  if (stored === undefined || !stored.includes(outdated)) return false;
  const columnsOf = (name: string) =>
    parseRows(COLUMN_ROW, storage.sql.exec(`PRAGMA table_info(${name})`).toArray());
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

/**
 * How a column reads back from SQLite (Durable Object or D1): text or a
 * number, `?` when it may be NULL, or one of a list of texts.
 */
export type ColumnKind = 'text' | 'number' | 'text?' | 'number?' | readonly string[];
export type RowShape = Readonly<Record<string, ColumnKind>>;
export type RowOf<S extends RowShape> = {
  -readonly [K in keyof S]: S[K] extends readonly (infer E)[]
    ? E
    : S[K] extends 'text'
      ? string
      : S[K] extends 'text?'
        ? string | null
        : S[K] extends 'number'
          ? number
          : number | null;
};

/** Checks rows a query answered against the columns it expects (see `rowShape`). */
export interface RowParser<T> {
  readonly name: string;
  parse(row: Readonly<Record<string, unknown>>): T;
}

const accepts: Record<Exclude<ColumnKind, readonly string[]>, (value: unknown) => boolean> = {
  text: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  'text?': (v) => v === null || typeof v === 'string',
  'number?': (v) => v === null || typeof v === 'number',
};

function described(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'NULL';
  return typeof value === 'string' ? 'text' : typeof value;
}

/**
 * A parser for the rows of one query: each named column must be there with
 * its kind, or the read throws an error naming the query and the column (a
 * schema drift is found where it happens, not as an `undefined` further on).
 * Extra columns pass untouched. A `typeof` per column: cheap enough for the
 * per-append path.
 */
export function rowShape<const S extends RowShape>(name: string, shape: S): RowParser<RowOf<S>> {
  const checks = Object.entries(shape).map(([column, kind]) => {
    if (typeof kind === 'string') return [column, kind, accepts[kind]] as const;
    const one = new Set<unknown>(kind);
    return [column, kind.join(' | '), (v: unknown) => one.has(v)] as const;
  });
  return {
    name,
    parse(row) {
      for (const [column, kind, ok] of checks) {
        const value = row[column];
        if (!ok(value)) {
          throw new Error(`${name}: column ${column} is ${described(value)}, expected ${kind}`);
        }
      }
      return row as RowOf<S>;
    },
  };
}

/** Every row of a result (`sql\`…\``, or D1's `results`), parsed. */
export function parseRows<T>(
  parser: RowParser<T>,
  result: readonly Readonly<Record<string, unknown>>[],
): T[] {
  return result.map((row) => parser.parse(row));
}

/** The first row of a result, parsed, or null when there is none. */
export function firstRow<T>(
  parser: RowParser<T>,
  result: readonly Readonly<Record<string, unknown>>[] | null | undefined,
): T | null {
  const row = result?.[0];
  return row === undefined ? null : parser.parse(row);
}

// The kernel's own reads (declared after `accepts`, which they use at load).
const SCHEMA_VERSION_ROW = rowShape('schema_versions', { version: 'number' });
const TABLE_SQL_ROW = rowShape('sqlite_master', { sql: 'text' });
const COLUMN_ROW = rowShape('table_info', {
  name: 'text',
  type: 'text',
  notnull: 'number',
  dflt_value: 'text?',
});
