import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { DELIVERED_LIMIT } from '../../src/kernel/webhooks/store';
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
    // Two more seconds: the backlog's next attempt is an hour away, so the alarm rests
    // (before, it fired ~40 times a second; a topic hand-over still in flight may add one).
    const before = alarms;
    await new Promise((r) => setTimeout(r, 2000));
    expect(alarms - before).toBeLessThanOrEqual(3);
  }, 30_000);
});

describe('delivered webhook messages', () => {
  it('are kept for replay up to the limit per endpoint, the oldest going first', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('kept');
    await register(streamId, name, ['*']);
    const object = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    await runInDurableObject(object, (_instance, state) => {
      const at = new Date().toISOString();
      for (let i = 0; i < DELIVERED_LIMIT; i++) {
        state.storage.sql.exec(
          `INSERT INTO webhook_messages (id, endpoint_id, event_type, body, status, created_at, updated_at, last_error)
           VALUES (?, ?, 'x', '{}', 'delivered', ?, ?, NULL)`,
          `msg_00old${String(i).padStart(5, '0')}`,
          name,
          at,
          at,
        );
      }
    });
    const bodies = [0, 1].map(() => wire11(streamId, { correlation_id: null }));
    for (const body of bodies) expect((await post(streamId, body)).status).toBe(201);
    await until(
      () => received(name),
      (rs) => bodies.every((b) => rs.some((r) => wireIdOf(r) === b.wire_id)),
      10_000,
    );
    const delivered = await until(
      () => streamStub(env, streamId).webhookMessages(name, 'delivered', 2000),
      (ms) => ms.filter((m) => !m.id.startsWith('msg_00old')).length === 2,
      10_000,
    );
    const ids = delivered.map((m) => m.id);
    expect(ids).toHaveLength(DELIVERED_LIMIT);
    // The two oldest went; the newest two are the Wires just delivered.
    expect(ids).not.toContain('msg_00old00000');
    expect(ids).not.toContain('msg_00old00001');
    expect(ids).toContain('msg_00old00002');
  }, 30_000);
});
