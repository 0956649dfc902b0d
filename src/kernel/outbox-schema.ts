import { type Sql, schemaGate } from './sql';

/**
 * One table for every via. Objects from before it had two: `outbox` (the
 * Wires owed to the topic, by seq) and `coord_outbox` (effects on other
 * streams); their rows move here, in the same stretch, and are delivered.
 */
export function migrateOutbox(sql: Sql): void {
  schemaGate(sql, 'outbox', 1, () => {
    const stored = sql<{ sql: string }>`SELECT sql FROM sqlite_master
      WHERE type = 'table' AND name = 'outbox'`[0]?.sql;
    const legacy = stored?.includes('topic TEXT') ?? false;
    if (legacy) sql`ALTER TABLE outbox RENAME TO outbox_topic_v0`;
    sql`CREATE TABLE IF NOT EXISTS outbox (
      id INTEGER PRIMARY KEY,
      via TEXT NOT NULL,
      target TEXT NOT NULL,
      seq INTEGER,
      body TEXT,
      tag TEXT,
      key TEXT,
      due_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0
    )`;
    if (legacy) {
      sql`INSERT INTO outbox (via, target, seq, due_at)
        SELECT 'topic', topic, seq, 0 FROM outbox_topic_v0 ORDER BY seq`;
      sql`DROP TABLE outbox_topic_v0`;
    }
    const effects = sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'coord_outbox'`;
    if (effects.length > 0) {
      sql`INSERT INTO outbox (via, target, body, tag, due_at, attempts)
        SELECT 'stream', target, draft, on_refused, due_at, attempts FROM coord_outbox ORDER BY id`;
      sql`DROP TABLE coord_outbox`;
      sql`DELETE FROM schema_versions WHERE capability = 'effect-outbox'`;
    }
  });
}
