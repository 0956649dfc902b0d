import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sqlOf } from '../../src/kernel/sql';
import type { Draft } from '../../src/protocol';
import { StreamObject } from '../../src/stream/stream-object';
import { WireLog } from '../../src/stream/wire-log';
import { readAll, uniqueStream, wire11 } from './helpers/wires';

/**
 * Before the one outbox, a StreamObject kept two tables: `outbox` (Wires owed
 * to the topic, by seq) and `coord_outbox` (effects owed to other streams).
 * An object upgraded with rows in them delivers every one.
 */
describe('upgrading a stream that has rows in the old outbox tables', () => {
  it('moves them into the one outbox and delivers them to the topic and the other stream', async () => {
    const streamId = uniqueStream('artifact');
    const other = uniqueStream('artifact');
    const topic = `upgrade-${Date.now().toString(36)}`;
    const effect = wire11(other, { correlation_id: null }) as unknown as Draft;
    const stream = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    const ids: string[] = [];
    await runInDurableObject(stream, async (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      // The storage as the object left it before: both old tables, their gate.
      sql`DROP TABLE outbox`;
      sql`DELETE FROM schema_versions WHERE capability = 'outbox'`;
      sql`CREATE TABLE outbox (seq INTEGER PRIMARY KEY, topic TEXT NOT NULL,
        body TEXT NOT NULL, received_at TEXT NOT NULL)`;
      sql`CREATE TABLE coord_outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL,
        draft TEXT NOT NULL, on_refused TEXT, due_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0)`;
      sql`INSERT OR REPLACE INTO schema_versions (capability, version) VALUES ('effect-outbox', 1)`;
      const log = new WireLog(sql);
      for (let i = 0; i < 2; i++) {
        const draft = wire11(streamId, { correlation_id: null }) as unknown as Draft;
        const { wire } = log.append(draft, new Date().toISOString());
        ids.push(wire.wire_id);
        sql`INSERT INTO outbox (seq, topic, body, received_at)
          VALUES (${wire.stream_seq}, ${topic}, '', '')`;
      }
      sql`INSERT INTO coord_outbox (target, draft, on_refused, due_at, attempts)
        VALUES (${other}, ${JSON.stringify(effect)}, NULL, 0, 3)`;

      // What activating the object after the upgrade does.
      const upgraded = new StreamObject(state, env);
      expect(sql`SELECT via, target, seq, attempts FROM outbox ORDER BY id`).toEqual([
        { via: 'topic', target: topic, seq: 1, attempts: 0 },
        { via: 'topic', target: topic, seq: 2, attempts: 0 },
        { via: 'stream', target: other, seq: null, attempts: 3 },
      ]);
      const tables = sql<{ name: string }>`SELECT name FROM sqlite_master
        WHERE type = 'table' AND name IN ('coord_outbox', 'outbox_topic_v0')`;
      expect(tables).toEqual([]);
      await upgraded.alarm();
      expect(sql`SELECT id FROM outbox`).toEqual([]);
    });
    const status = await env.TOPICS.get(env.TOPICS.idFromName(topic)).status();
    expect(status).toMatchObject({ name: topic, total: 2 });
    expect((await readAll(other)).map((w) => w.wire_id)).toEqual([effect.wire_id]);
    expect(ids).toHaveLength(2);
  });
});
