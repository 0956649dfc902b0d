import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { UNANCHORED_QUERY, UNNOTIFIED_QUERY } from '../../src/topic/topic-log';
import { ANCHORED_QUERY, FRESH_QUERY } from '../../src/topic/topic-projection';

/**
 * The anchoring pass and the projection run these queries every round, over
 * a table that keeps every Wire the topic ever held: each must walk a partial
 * index of the few rows it wants, not scan the table (the anchoring query
 * did, and its cost grew with the topic) nor a backlog of rows it skips (the
 * projection did whenever anchoring ran behind).
 */
describe('TopicObject hot queries', () => {
  async function plans(
    rows: (i: number) => { anchored: boolean; notified: number; projected: number },
    queries: Record<string, string>,
  ) {
    const topic = env.TOPICS.get(env.TOPICS.idFromName(`plans-${crypto.randomUUID()}`));
    return runInDurableObject(topic, (_object, state) => {
      const sql = state.storage.sql;
      for (let i = 0; i < 300; i++) {
        const r = rows(i);
        sql.exec(
          `INSERT INTO wires (wire_id, stream_id, stream_seq, message, body, accepted_at,
            hcs_sequence_number, notified, projected) VALUES (?, 's', ?, '{}', '{}', 0, ?, ?, ?)`,
          `w${i}`,
          i + 1,
          r.anchored ? i + 1 : null,
          r.notified,
          r.projected,
        );
      }
      sql.exec('ANALYZE');
      const out: Record<string, { rows: number; plan: string }> = {};
      for (const [name, text] of Object.entries(queries)) {
        out[name] = {
          rows: sql.exec(text, 500).toArray().length,
          plan: sql
            .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, 500)
            .toArray()
            .map((r) => r.detail)
            .join(' | '),
        };
      }
      return out;
    });
  }

  it('finds unreported anchors through wires_unnotified, without scanning every Wire', async () => {
    // Many reported Wires and a few waiting, as in a long-lived topic.
    const got = await plans((i) => ({ anchored: true, notified: i < 297 ? 1 : 0, projected: 2 }), {
      unnotified: UNNOTIFIED_QUERY,
    });
    expect(got.unnotified?.rows).toBe(3);
    expect(got.unnotified?.plan).toContain('USING INDEX wires_unnotified');
  });

  it('finds Wires to send without scanning every Wire, reading only what the pass uses', async () => {
    // A long-lived topic: most Wires anchored, a few in flight.
    const got = await plans((i) => ({ anchored: i < 296, notified: 1, projected: 2 }), {
      unanchored: UNANCHORED_QUERY,
    });
    expect(got.unanchored?.rows).toBe(4);
    // Either index holds the unanchored rows apart, in pos order (SQLite files
    // NULL keys together, by rowid); which one the planner takes is its choice.
    expect(got.unanchored?.plan).toMatch(/^SEARCH wires USING INDEX wires_(unanchored|hcs_seq)\b/);
    expect(got.unanchored?.plan).not.toMatch(/SCAN|TEMP B-TREE/);
    expect(UNANCHORED_QUERY).not.toMatch(/\bbody\b|\*/);
  });

  it('projects from indexes that skip the backlog still waiting for consensus', async () => {
    // Anchoring behind: 290 Wires in D1 wait for their anchor, 5 are new,
    // 5 have just been anchored.
    const got = await plans(
      (i) =>
        i < 290
          ? { anchored: false, notified: 0, projected: 1 }
          : i < 295
            ? { anchored: false, notified: 0, projected: 0 }
            : { anchored: true, notified: 0, projected: 1 },
      { fresh: FRESH_QUERY, anchored: ANCHORED_QUERY },
    );
    expect(got.fresh?.rows).toBe(5);
    expect(got.fresh?.plan).toContain('USING INDEX wires_projection_fresh');
    expect(got.anchored?.rows).toBe(5);
    expect(got.anchored?.plan).toContain('USING INDEX wires_projection_anchored');
  });
});
