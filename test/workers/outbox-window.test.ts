import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { streamStub } from '../../src/stream/stub';
import { received, register, uniqueName, until, wireIdOf } from './helpers/webhooks';
import { post, uniqueStream, wire11 } from './helpers/wires';

/**
 * The outbox reads a window of rows per round. For an unordered delivery
 * (webhooks) that window holds only rows it can send: one receiver down for
 * hours, with hundreds of messages waiting for their retry, holds up neither
 * another endpoint's messages nor makes the object's alarm fire again and again.
 */
describe('an endpoint with a long retry backlog', () => {
  it('does not hold up a healthy endpoint of the same stream, nor spin the alarm', async () => {
    const streamId = uniqueStream('artifact');
    const down = uniqueName('down');
    const healthy = uniqueName('healthy');
    await register(streamId, down, ['nothing.matches']);
    await register(streamId, healthy, ['*']);
    const object = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    let alarms = 0;
    await runInDurableObject(object, (instance, state) => {
      // What 400 messages to `down` leave behind once their first attempt failed:
      // one attempt made, the next an hour away.
      const sql = state.storage.sql;
      const now = Date.now();
      const at = new Date(now).toISOString();
      for (let i = 0; i < 400; i++) {
        const id = `msg_backlog${String(i).padStart(5, '0')}`;
        sql.exec(
          `INSERT INTO webhook_messages (id, endpoint_id, event_type, body, status, created_at, updated_at, last_error)
           VALUES (?, ?, 'x', '{}', 'pending', ?, ?, 'HTTP 500')`,
          id,
          down,
          at,
          at,
        );
        sql.exec(
          `INSERT INTO outbox (via, target, key, attempts, due_at) VALUES ('http', ?, ?, 1, ?)`,
          down,
          id,
          now + 3_600_000,
        );
      }
      const alarm = instance.alarm.bind(instance);
      (instance as unknown as { alarm: () => Promise<void> }).alarm = async () => {
        alarms += 1;
        return alarm();
      };
    });
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const got = await until(
      () => received(healthy),
      (rs) => rs.some((r) => wireIdOf(r) === body.wire_id),
      10_000,
    );
    expect(got.map(wireIdOf)).toContain(body.wire_id);
    expect((await streamStub(env, streamId).webhookMessages(healthy)).map((m) => m.status)).toEqual(
      ['delivered'],
    );
    // Two more seconds: the backlog's next attempt is an hour away, so the alarm rests.
    const before = alarms;
    await new Promise((r) => setTimeout(r, 2000));
    expect(alarms - before).toBeLessThanOrEqual(1);
    const next = await runInDurableObject(object, (_i, state) => state.storage.getAlarm());
    expect(next === null || next > Date.now() + 60_000).toBe(true);
  }, 30_000);
});
