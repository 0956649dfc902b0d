import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sqlOf } from '../../src/kernel/sql';
import { TopicDirectory } from '../../src/topic/topic-directory';
import { TopicLog } from '../../src/topic/topic-log';
import { TopicObject } from '../../src/topic/topic-object';

/**
 * Storage made before a wire_id was keyed per stream still holds tables
 * with `UNIQUE (wire_id)`. Opening it upgrades the table in place: every
 * row kept as it was, and a second stream's Wire with the same id fits.
 */
describe('upgrading storage keyed on wire_id alone', () => {
  it("keeps a topic's Wires, every column, and then takes another stream's same wire_id", async () => {
    const topic = env.TOPICS.get(env.TOPICS.idFromName(`upgrade-${Date.now()}`));
    await runInDurableObject(topic, (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      sql`DROP TABLE wires`;
      // The table as TopicLog created it before, plus the column TopicProjection
      // adds to it, with two Wires: one anchored and projected, one neither.
      sql`CREATE TABLE wires (pos INTEGER PRIMARY KEY AUTOINCREMENT,
        wire_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL, stream_seq INTEGER NOT NULL,
        message TEXT NOT NULL, body TEXT NOT NULL, accepted_at INTEGER NOT NULL, tx_ids TEXT,
        hcs_sequence_number INTEGER, consensus_timestamp TEXT, running_hash TEXT,
        hcs_chunks INTEGER, anchored_at INTEGER, notified INTEGER NOT NULL DEFAULT 0,
        origin TEXT NOT NULL DEFAULT 'coordinator')`;
      sql`ALTER TABLE wires ADD COLUMN projected INTEGER NOT NULL DEFAULT 0`;
      sql`INSERT INTO wires (wire_id, stream_id, stream_seq, message, body, accepted_at,
        hcs_sequence_number, notified, projected) VALUES
        ('w1', 'agent:a', 1, 'm1', '{}', 5, 9, 1, 2),
        ('w2', 'agent:a', 2, 'm2', '{}', 6, NULL, 0, 0)`;
      const before = sql`SELECT * FROM wires ORDER BY pos`;

      // What activating the object after the upgrade does.
      new TopicObject(state, env);
      expect(sql`SELECT * FROM wires ORDER BY pos`).toEqual(before);
      const log = new TopicLog(sql, state.storage);
      expect(log.byWire('agent:a', 'w1')).toMatchObject({ pos: 1, hcs_sequence_number: 9 });
      expect(log.unanchored(10).map((r) => r.wire_id)).toEqual(['w2']);
      const wire = {
        wire: '1.1' as const,
        wire_id: 'w1',
        stream_id: 'agent:b',
        stream_seq: 1,
        correlation_id: null,
        causation_id: null,
        type: 'review.concern',
        sender: 'agent:b',
        ts: '2026-05-01T16:00:00Z',
        payload: {},
        received_at: '2026-05-01T16:00:00.000Z',
      };
      expect(log.accept([wire], () => 'm3', 7)).toBe(1);
      expect(log.byWire('agent:b', 'w1')).toMatchObject({ pos: 3, message: 'm3', projected: 0 });
      // Still idempotent per stream.
      expect(log.accept([wire], () => 'm3', 8)).toBe(0);
      const indexes = sql<{ name: string }>`SELECT name FROM sqlite_master
        WHERE type = 'index' AND tbl_name = 'wires' AND name NOT LIKE 'sqlite_%' ORDER BY name`;
      expect(indexes.map((i) => i.name)).toEqual([
        'wires_hcs_seq',
        'wires_projection_anchored',
        'wires_projection_fresh',
        'wires_unanchored',
        'wires_unnotified',
      ]);
    });
  });

  it("keeps the directory's wire index and then lists both streams", async () => {
    const scratch = env.TOPIC_DIRECTORY.get(
      env.TOPIC_DIRECTORY.idFromName(`upgrade-${Date.now()}`),
    );
    await runInDurableObject(scratch, (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      sql`DROP TABLE wire_index`;
      sql`CREATE TABLE wire_index (wire_id TEXT PRIMARY KEY, stream_id TEXT NOT NULL,
        topic TEXT NOT NULL)`;
      sql`INSERT INTO wire_index VALUES ('w1', 'agent:a', 'project.p')`;

      const directory = new TopicDirectory(state, env);
      expect(directory.locate('w1')).toEqual([{ stream_id: 'agent:a', topic: 'project.p' }]);
      directory.indexWires('project.p', [{ wire_id: 'w1', stream_id: 'agent:b' }]);
      expect(directory.locate('w1')).toEqual([
        { stream_id: 'agent:a', topic: 'project.p' },
        { stream_id: 'agent:b', topic: 'project.p' },
      ]);
    });
  });

  it('migration 0004 keeps every projected Wire and keys wire_events per stream', async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0004_'));
    expect(migration).toBeDefined();
    // Replayed on a scratch SQLite holding wire_events as 0001 and 0002 made it.
    const scratch = env.TOPICS.get(env.TOPICS.idFromName(`d1-upgrade-${Date.now()}`));
    await runInDurableObject(scratch, (_object, state) => {
      const exec = (q: string) => state.storage.sql.exec(q).toArray();
      for (const m of env.TEST_MIGRATIONS.filter((m) => m.name.startsWith('0001_'))) {
        for (const q of m.queries) exec(q);
      }
      exec(`CREATE INDEX wire_events_received ON wire_events (received_at, wire_id)`);
      exec(`INSERT INTO wire_events (wire_id, stream_id, stream_seq, type, sender, ts, payload,
        received_at, hcs_topic_id, hcs_sequence_number) VALUES
        ('w1', 'agent:a', 1, 'review.concern', 'agent:a', 't', '{}', 'r1', '0.0.5', 3),
        ('w2', 'agent:a', 2, 'review.concern', 'agent:a', 't', '{"x":1}', 'r2', NULL, NULL)`);
      const before = exec('SELECT * FROM wire_events ORDER BY wire_id');
      for (const q of migration?.queries ?? []) exec(q);
      expect(exec('SELECT * FROM wire_events ORDER BY wire_id')).toEqual(before);
      exec(`INSERT INTO wire_events (wire_id, stream_id, stream_seq, type, sender, ts, payload,
        received_at) VALUES ('w1', 'agent:b', 1, 'review.concern', 'agent:b', 't', '{}', 'r3')`);
      expect(exec(`SELECT stream_id FROM wire_events WHERE wire_id = 'w1' ORDER BY 1`)).toEqual([
        { stream_id: 'agent:a' },
        { stream_id: 'agent:b' },
      ]);
      expect(() =>
        exec(`INSERT INTO wire_events (wire_id, stream_id, stream_seq, type, sender, ts, payload,
          received_at) VALUES ('w1', 'agent:b', 2, 'x', 'agent:b', 't', '{}', 'r4')`),
      ).toThrow(/UNIQUE/);
    });
  });
});
