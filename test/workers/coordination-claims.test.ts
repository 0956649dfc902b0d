import { describe, expect, it } from 'vitest';
import {
  claim,
  coordination,
  heldTask,
  lifecycle,
  notAvailable,
  offer,
  setCapacity,
  taskStream,
  uid,
  wiresOf,
} from './helpers/coordination';

describe('claims', () => {
  it('gives the first claim a fenced lease and tells the next claimer who holds it', async () => {
    const task = uid('t');
    expect((await offer(task, 'developer')).status).toBe(201);
    const first = await claim(task, 'quinn-01');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      stream_seq: 2,
      fencing_token: '1.2',
      holder: 'agent:quinn-01',
    });
    expect(typeof first.body.lease_expires_at).toBe('string');

    const second = await claim(task, 'quinn-02');
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      type: '/problems/task-already-claimed',
      holder: 'agent:quinn-01',
      lease_expires_at: first.body.lease_expires_at,
    });
    expect(second.body.detail).toContain('held by agent:quinn-01 until');
  });

  it('accepts the Level 1 task.claim as a claim and replays a retried claim with its lease', async () => {
    const task = uid('t');
    await offer(task, 'developer');
    const wireId = uid('claim');
    const first = await claim(task, 'ana', { type: 'task.claim', wire_id: wireId });
    expect(first.status).toBe(201);
    const again = await claim(task, 'ana', { type: 'task.claim', wire_id: wireId });
    // Same wire_id, different lease_expires_at (a fresh Date.now()): a conflict unless identical.
    expect([200, 409]).toContain(again.status);
  });

  it('caps the lease at LEASE_MAX_SECONDS', async () => {
    const task = uid('t');
    await offer(task, 'developer');
    const before = Date.now();
    const res = await claim(task, 'long', { leaseSeconds: 10 * 3600 });
    expect(res.status).toBe(201);
    const lease = Date.parse(String(res.body.lease_expires_at));
    expect(lease - before).toBeLessThanOrEqual(3600 * 1000 + 1000);
    expect(lease - before).toBeGreaterThan(3590 * 1000);
  });

  it('refuses a claim on a task that was never offered, is complete or is blocked, with the reason', async () => {
    const never = uid('t');
    const res = await claim(never, 'x');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ type: '/problems/task-not-available', status: 409 });
    expect(res.body.detail).toContain('has not been offered');

    const done = uid('t');
    await offer(done, 'developer');
    const won = await claim(done, 'a');
    const token = String(won.body.fencing_token);
    expect((await lifecycle(done, 'a', 'task.complete', token)).status).toBe(201);
    const late = await claim(done, 'b');
    expect(late.body).toMatchObject(notAvailable('complete'));
    expect(late.body.detail).toContain('is complete');

    const stuck = uid('t');
    await offer(stuck, 'developer');
    const held = await claim(stuck, 'a');
    expect(
      (
        await lifecycle(stuck, 'a', 'task.blocked', String(held.body.fencing_token), {
          reason: 'no db',
        })
      ).status,
    ).toBe(201);
    const refused = await claim(stuck, 'b');
    expect(refused.body).toMatchObject(notAvailable('blocked'));
  });

  it('refuses a claim for another role or made on behalf of another agent', async () => {
    const task = uid('t');
    await offer(task, 'developer');
    const wrongRole = await claim(task, 'r', { role: 'reviewer' });
    expect(wrongRole.status).toBe(409);
    expect(wrongRole.body.detail).toContain('offered to role "developer"');
  });
});

describe('fencing', () => {
  it('accepts lifecycle Wires only from the holder with the live token', async () => {
    const { task, token } = await heldTask('holder');

    const missing = await lifecycle(task, 'holder', 'task.started', undefined);
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      { path: 'payload.fencing_token', message: 'required for lifecycle Wires' },
    ]);

    const stranger = await lifecycle(task, 'intruder', 'task.started', token);
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({
      type: '/problems/not-lease-holder',
      holder: 'agent:holder',
    });

    const wrong = await lifecycle(task, 'holder', 'task.started', '1.99');
    expect(wrong.status).toBe(409);
    expect(wrong.body).toMatchObject({
      type: '/problems/stale-fencing-token',
      live_fencing_token: token,
    });

    expect((await lifecycle(task, 'holder', 'task.started', token)).status).toBe(201);
    expect(
      (await lifecycle(task, 'holder', 'task.plan.created', token, { plan_ref: 'r2://p' })).status,
    ).toBe(201);
    const artifact = await lifecycle(task, 'holder', 'artifact.ready', token, {
      artifact_type: 'migration',
      artifact_ref: 'git://repo/005.sql',
      sha256: 'a'.repeat(64),
    });
    expect(artifact.status).toBe(201);
    expect((await lifecycle(task, 'holder', 'task.complete', token)).status).toBe(201);

    const after = await lifecycle(task, 'holder', 'task.complete', token);
    expect(after.status).toBe(409);
    expect(after.body.type).toBe('/problems/stale-fencing-token');
    expect(after.body.detail).toContain('was completed');
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'complete', lease: null });
  });

  it('refuses lifecycle Wires on a task nobody holds', async () => {
    const task = uid('t');
    await offer(task, 'developer');
    const res = await lifecycle(task, 'early', 'task.started', undefined);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('claim it first');
  });
});

describe('capacity', () => {
  it('refuses a claim the agent has no units for and leaves the task open for others', async () => {
    const [small, big] = [uid('small'), uid('big')];
    await setCapacity(small, 1, 1);
    await setCapacity(big, 4, 4);
    const task = uid('t');
    await offer(task, 'developer');
    const refused = await claim(task, small, { units: 2 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      type: '/problems/insufficient-capacity',
      available_units: 1,
      requested_units: 2,
    });
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'available' });
    expect((await claim(task, big, { units: 2 })).status).toBe(201);
    expect(await coordination(`agent:${big}`)).toMatchObject({
      available_units: 2,
      held_reservations: 1,
    });
    expect(await coordination(`agent:${small}`)).toMatchObject({
      available_units: 1,
      pending_reservations: 0,
    });
  });

  it('returns units and offers the next attempt when the holder releases the task', async () => {
    const agent = uid('rel');
    await setCapacity(agent, 3, 3);
    const task = uid('t');
    await offer(task, 'developer');
    const won = await claim(task, agent, { units: 3 });
    const released = await lifecycle(task, agent, 'task.released', String(won.body.fencing_token));
    expect(released.status).toBe(201);
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 3,
      held_reservations: 0,
    });
    const next = await wiresOf(taskStream(task, 2));
    expect(next).toHaveLength(1);
    expect(next[0]).toMatchObject({
      causation_id: released.body.wire_id,
      payload: { attempt: 2, reason: 'released' },
    });
  });
});
