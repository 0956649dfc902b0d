import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { StreamObject } from '../../src/stream/stream-object';
import {
  claim,
  coordination,
  fakeClock,
  heldTask,
  lifecycle,
  notAvailable,
  offer,
  send,
  setCapacity,
  streamStubOf,
  taskStream,
  uid,
  wiresOf,
} from './helpers/coordination';

const { advance } = fakeClock();
const stubOf = streamStubOf;

describe('leases', () => {
  it('answers a retried heartbeat with the lease as it stands now', async () => {
    const { task, token } = await heldTask('rebeat', { leaseSeconds: 60 });
    advance(10);
    const more = { wire_id: uid('hb'), ts: new Date().toISOString() };
    const first = await lifecycle(task, 'rebeat', 'task.heartbeat', token, {}, 1, more);
    expect(first.status).toBe(201);
    advance(10);
    const later = await lifecycle(task, 'rebeat', 'task.heartbeat', token);
    expect(later.status).toBe(201);
    // The first heartbeat again (a client retry): stored once, answered with today's lease.
    const again = await lifecycle(task, 'rebeat', 'task.heartbeat', token, {}, 1, more);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      wire_id: more.wire_id,
      stream_seq: first.body.stream_seq,
      lease_expires_at: later.body.lease_expires_at,
      fencing_token: token,
    });
    // Once the lease has ended, a retry still replays but promises no lease.
    expect((await lifecycle(task, 'rebeat', 'task.complete', token)).status).toBe(201);
    const after = await lifecycle(task, 'rebeat', 'task.heartbeat', token, {}, 1, more);
    expect(after.status).toBe(200);
    expect(after.body).not.toHaveProperty('lease_expires_at');
  });

  it('extends the lease on a heartbeat, so the alarm at the old expiry re-offers nothing', async () => {
    const { task, token } = await heldTask('beat', { leaseSeconds: 60 });
    advance(50);
    const beat = await lifecycle(task, 'beat', 'task.heartbeat', token);
    expect(beat.status).toBe(201);
    expect(Date.parse(String(beat.body.lease_expires_at))).toBe(Date.now() + 60_000);

    advance(30); // past the first lease, inside the extended one
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'claimed' });
    expect((await wiresOf(taskStream(task))).map((w) => w.type)).toEqual([
      'task.available',
      'task.claimed',
      'task.heartbeat',
    ]);
    expect((await lifecycle(task, 'beat', 'task.complete', token)).status).toBe(201);
  });

  it('re-offers an expired task once as attempt n+1, caused by the expiry Wire, however often the alarm fires', async () => {
    const task = uid('t');
    await offer(task, 'developer', 1, 'project:leases');
    await claim(task, 'sleepy', { leaseSeconds: 60 });
    advance(3 * 60); // the alarm is late
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    await runDurableObjectAlarm(stubOf(taskStream(task))); // and fires again
    // …or is delivered twice at once (at-least-once alarms).
    await runInDurableObject(stubOf(taskStream(task)), (o: StreamObject) =>
      Promise.all([o.alarm(), o.alarm()]),
    );

    const first = await wiresOf(taskStream(task));
    const expired = first.filter((w) => w.type === 'task.lease.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({
      sender: 'system',
      payload: { agent: 'sleepy', fencing_token: '1.2', next_stream_id: taskStream(task, 2) },
    });

    const second = await wiresOf(taskStream(task, 2));
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({
      type: 'task.available',
      sender: 'system',
      causation_id: expired[0]?.wire_id,
      correlation_id: 'project:leases',
      payload: {
        task_id: task,
        role: 'developer',
        attempt: 2,
        previous_stream_id: taskStream(task),
      },
    });
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'expired', lease: null });
    expect(await coordination(taskStream(task, 2))).toMatchObject({ status: 'available' });
  });

  it('refuses a late Wire from the expired holder, before and after the alarm, and fences it out of the next attempt', async () => {
    const { task, token } = await heldTask('paused', { leaseSeconds: 60 });
    advance(61);

    const beforeAlarm = await lifecycle(task, 'paused', 'task.complete', token);
    expect(beforeAlarm.status).toBe(409);
    expect(beforeAlarm.body.type).toBe('/problems/stale-fencing-token');
    expect(beforeAlarm.body.detail).toContain('expired at');

    await runDurableObjectAlarm(stubOf(taskStream(task)));
    const afterAlarm = await lifecycle(task, 'paused', 'task.complete', token);
    expect(afterAlarm.status).toBe(409);
    expect(afterAlarm.body).toMatchObject({
      type: '/problems/stale-fencing-token',
      next_stream_id: taskStream(task, 2),
    });
    expect(afterAlarm.body.detail).toContain(`re-offered as ${taskStream(task, 2)}`);

    const successor = await claim(task, 'fresh', { attempt: 2 });
    expect(successor.status).toBe(201);
    expect(successor.body.fencing_token).toBe('2.2');
    const intrusion = await lifecycle(
      task,
      'paused',
      'artifact.ready',
      token,
      {
        artifact_type: 'migration',
        artifact_ref: 'git://x',
        sha256: 'b'.repeat(64),
      },
      2,
    );
    expect(intrusion.status).toBe(403);
    expect(intrusion.body).toMatchObject({
      type: '/problems/not-lease-holder',
      holder: 'agent:fresh',
    });
    const claimOld = await claim(task, 'paused');
    expect(claimOld.body).toMatchObject(notAvailable('expired'));
  });

  it('returns reserved capacity when a lease expires', async () => {
    const agent = uid('cap');
    await setCapacity(agent, 3, 3);
    const task = uid('t');
    await offer(task, 'developer');
    expect((await claim(task, agent, { units: 2, leaseSeconds: 60 })).status).toBe(201);
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 1,
      held_reservations: 1,
    });
    advance(120);
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 3,
      held_reservations: 0,
      pending_reservations: 0,
    });
  });

  it('returns a reservation that was never confirmed when its timeout lapses', async () => {
    const agent = uid('cap');
    await setCapacity(agent, 2, 2);
    const stub = stubOf(`agent:${agent}`);
    // Phase one of a claim whose task object died before deciding.
    const reserved = await stub.append({
      wire: '1.1',
      wire_id: uid('r'),
      stream_id: `agent:${agent}`,
      correlation_id: null,
      causation_id: null,
      type: 'agent.capacity.reserved',
      sender: 'system',
      ts: new Date(Date.now()).toISOString(),
      payload: {
        reservation_id: 'task:ghost:attempt:1/claim-1',
        units: 2,
        task_stream_id: 'task:ghost:attempt:1',
        expires_at: new Date(Date.now() + 30_000).toISOString(),
      },
    });
    expect(reserved.ok).toBe(true);
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 0,
      pending_reservations: 1,
    });
    advance(31);
    await runDurableObjectAlarm(stub);
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 2,
      pending_reservations: 0,
    });
  });
});

describe('agent health', () => {
  it('marks an agent stale after AGENT_STALE_SECONDS of silence and fresh again on a heartbeat', async () => {
    const agent = uid('h');
    const stream = `agent:${agent}`;
    expect((await send(stream, 'agent.started', stream, { role: 'developer' })).status).toBe(201);
    expect(await coordination(stream)).toMatchObject({
      status: 'running',
      stale: false,
      role: 'developer',
    });
    advance(121);
    expect(await coordination(stream)).toMatchObject({ status: 'running', stale: true });
    expect((await send(stream, 'agent.heartbeat', stream, {})).status).toBe(201);
    expect(await coordination(stream)).toMatchObject({
      stale: false,
      last_heartbeat_at: new Date(Date.now()).toISOString(),
    });
    expect((await send(stream, 'agent.lease.accepted', stream, { task_id: 't1' })).status).toBe(
      201,
    );
    expect(await coordination(stream)).toMatchObject({ active_leases: ['t1'] });
    expect((await send(stream, 'agent.stopped', stream, { reason: 'deploy' })).status).toBe(201);
    expect(await coordination(stream)).toMatchObject({ status: 'stopped' });
  });

  it('refuses health and capacity Wires about another agent', async () => {
    const res = await send(`agent:${uid('victim')}`, 'agent.capacity.updated', 'agent:mallory', {
      available_units: 0,
      max_units: 0,
    });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('must be sent by agent:');
  });
});
