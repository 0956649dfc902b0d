import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { UNNOTIFIED_QUERY } from '../../src/topic/topic-log';

/**
 * The anchoring pass runs this query on every pass, over a table that keeps
 * every Wire the topic ever held: it must walk the partial index of the few
 * unreported rows, not scan the table (it did, and cost grew with the topic).
 */
describe('TopicObject hot queries', () => {
  it('finds unreported anchors through wires_unnotified, without scanning every Wire', async () => {
    const topic = env.TOPICS.get(env.TOPICS.idFromName(`plans-${crypto.randomUUID()}`));
    const plan = await runInDurableObject(topic, (_object, state) => {
      // Many reported Wires and a few waiting, as in a long-lived topic.
      const sql = state.storage.sql;
      for (let i = 0; i < 300; i++) {
        sql.exec(
          `INSERT INTO wires (wire_id, stream_id, stream_seq, message, body, accepted_at,
            hcs_sequence_number, notified) VALUES (?, 's', ?, '{}', '{}', 0, ?, ?)`,
          `w${i}`,
          i + 1,
          i + 1,
          i < 297 ? 1 : 0,
        );
      }
      sql.exec('ANALYZE');
      const rows = sql
        .exec(`SELECT * FROM wires WHERE notified = 0
        AND hcs_sequence_number IS NOT NULL ORDER BY pos LIMIT 500`)
        .toArray();
      const details = sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${UNNOTIFIED_QUERY}`, 500)
        .toArray()
        .map((r) => r.detail);
      return { waiting: rows.length, details };
    });
    expect(plan.waiting).toBe(3);
    expect(plan.details.join(' | ')).toContain('USING INDEX wires_unnotified');
  });
});
