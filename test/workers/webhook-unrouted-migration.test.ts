import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../src/kernel/outbox';
import { sqlOf } from '../../src/kernel/sql';
import { webhookSettings } from '../../src/kernel/webhooks/settings';
import { Webhooks } from '../../src/kernel/webhooks/store';

/**
 * A stream whose webhook tables predate `webhook_unrouted` (schema version 1)
 * kept a dead message for every event sent to an id with no endpoint. On its
 * next start they become counts, and a removed endpoint's dead letters stay.
 */
describe('the webhook tables from version 1 to 2', () => {
  it('turns the dead messages of ids with no endpoint into counts, and keeps the rest', async () => {
    const stub = env.STREAMS.get(env.STREAMS.idFromName(`gsd:mig${Date.now().toString(36)}`));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      // Back to version 1, as a stream written before this change left it.
      sql`DROP TABLE webhook_unrouted`;
      sql`UPDATE schema_versions SET version = 1 WHERE capability = 'webhooks'`;
      const dead = (id: string, endpoint: string, type: string, at: string, error: string) =>
        sql`INSERT INTO webhook_messages
          (id, endpoint_id, event_type, body, status, created_at, updated_at, last_error)
          VALUES (${id}, ${endpoint}, ${type}, '{}', 'dead', ${at}, ${at}, ${error})`;
      dead(
        'msg_1',
        'pager',
        'task:failed',
        '2026-11-01T10:00:00.000Z',
        'no endpoint pager on this stream',
      );
      dead(
        'msg_2',
        'pager',
        'task:completed',
        '2026-11-02T10:00:00.000Z',
        'no endpoint pager on this stream',
      );
      dead(
        'msg_3',
        'gone',
        'task:completed',
        '2026-11-03T10:00:00.000Z',
        'the endpoint was removed',
      );

      const webhooks = new Webhooks(sql, new Outbox(sql), webhookSettings(env));
      expect(webhooks.unrouted()).toEqual([
        {
          endpoint_id: 'pager',
          skipped: 2,
          first_at: '2026-11-01T10:00:00.000Z',
          last_at: '2026-11-02T10:00:00.000Z',
          last_event_type: 'task:completed',
        },
      ]);
      expect(webhooks.messages('pager')).toEqual([]);
      expect(webhooks.messages('gone').map((m) => m.id)).toEqual(['msg_3']);
      // Counting goes on where the old rows left off.
      expect(webhooks.send('pager', 'task:failed', {}, Date.parse('2026-11-04T10:00:00Z'))).toBe(
        null,
      );
      expect(webhooks.unrouted()[0]).toMatchObject({ skipped: 3, last_event_type: 'task:failed' });
    });
  });
});
