import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Draft } from '../../src/protocol';
import { StreamObject } from '../../src/stream/stream-object';
import {
  claim,
  coordination,
  fakeClock,
  offer,
  setCapacity,
  streamStubOf,
  taskStream,
  uid,
  wiresOf,
} from './helpers/coordination';

// Issue 26, defect 11: the two crash windows of a claim that reserves
// capacity, driven deterministically in workerd (no sleeps, the clock moved
// by hand, alarms fired by the test):
//   (a) the task object stores the claim, then dies before its capacity
//       confirm reaches the agent's stream;
//   (b) that confirm arrives only after the reservation timed out.
// The confirm is held back by making the agent's object fail the one append
// that carries it (as a dead isolate would), then the task object is reset,
// so what happens next comes from storage alone.

const { advance } = fakeClock();
afterEach(() => {
  vi.restoreAllMocks();
});
const stubOf = streamStubOf;

/** The agent's object fails every append of a capacity confirm for `agent` until released. */
function holdConfirms(agent: string): { release(): void; refusedCalls(): number } {
  const original = StreamObject.prototype.append;
  let held = true;
  let calls = 0;
  vi.spyOn(StreamObject.prototype, 'append').mockImplementation(function (
    this: StreamObject,
    draft: Draft,
    ...rest: [number?, number?]
  ) {
    if (held && draft.stream_id === `agent:${agent}` && draft.type === 'agent.capacity.confirmed') {
      calls++;
      throw new Error('agent object unreachable');
    }
    return original.call(this, draft, ...rest);
  });
  return {
    release: () => {
      held = false;
    },
    refusedCalls: () => calls,
  };
}

/** Resets the task object: a fresh instance starts from what its storage holds. */
async function crash(streamId: string): Promise<void> {
  await runInDurableObject(stubOf(streamId), (_instance, state) => {
    try {
      state.abort('crash (test)');
    } catch {
      // abort() throws in its caller by design
    }
  }).catch(() => undefined);
}

async function claimHeld(agent: string, task: string) {
  await setCapacity(agent, 3, 3);
  await offer(task, 'developer');
  const hold = holdConfirms(agent);
  const won = await claim(task, agent, { units: 2, leaseSeconds: 600 });
  // The claim is stored and acknowledged; its confirm is not delivered.
  expect(won.status).toBe(201);
  expect(hold.refusedCalls()).toBe(1);
  expect(await coordination(`agent:${agent}`)).toMatchObject({
    available_units: 1,
    pending_reservations: 1,
    held_reservations: 0,
  });
  await crash(taskStream(task));
  return hold;
}

const typesOf = async (streamId: string) => (await wiresOf(streamId)).map((w) => w.type);

/** The agent's units and reservations, and how many confirms and returns its stream holds. */
async function capacityOf(agent: string) {
  const { available_units, pending_reservations, held_reservations } = await coordination(
    `agent:${agent}`,
  );
  const types = await typesOf(`agent:${agent}`);
  const count = (type: string) => types.filter((t) => t === type).length;
  return {
    available_units,
    pending_reservations,
    held_reservations,
    confirmed: count('agent.capacity.confirmed'),
    returned: count('agent.capacity.returned'),
  };
}

describe('crash windows of a capacity claim', () => {
  it('(a) a claim stored before its confirm was delivered is confirmed once, by the alarm, after the crash', async () => {
    const agent = uid('cw-a');
    const task = uid('t');
    const hold = await claimHeld(agent, task);
    hold.release();
    advance(11); // the outbox's first retry, well inside the 30 s reservation timeout
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    await runDurableObjectAlarm(stubOf(taskStream(task))); // a second alarm delivers nothing new
    expect(await capacityOf(agent)).toEqual({
      available_units: 1,
      pending_reservations: 0,
      held_reservations: 1,
      confirmed: 1,
      returned: 0,
    });
    // The agent's own timeout passes: a held reservation is not returned.
    advance(60);
    await runDurableObjectAlarm(stubOf(`agent:${agent}`));
    expect(await coordination(`agent:${agent}`)).toMatchObject({ held_reservations: 1 });
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'claimed' });
  });

  it('(b) a confirm that arrives after the reservation timed out revokes the lease and re-offers the task once', async () => {
    const agent = uid('cw-b');
    const task = uid('t');
    const hold = await claimHeld(agent, task);
    // The reservation lapses first: the agent's alarm returns it.
    advance(31);
    await runDurableObjectAlarm(stubOf(`agent:${agent}`));
    expect(await coordination(`agent:${agent}`)).toMatchObject({
      available_units: 3,
      pending_reservations: 0,
    });
    // Then the task object comes back and delivers its confirm: refused.
    hold.release();
    advance(1);
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    await runDurableObjectAlarm(stubOf(taskStream(task)));
    expect(await capacityOf(agent)).toEqual({
      available_units: 3,
      pending_reservations: 0,
      held_reservations: 0,
      confirmed: 0,
      returned: 1,
    });
    // The holder's lease is revoked like an expiry, and the task offered again once.
    expect(await coordination(taskStream(task))).toMatchObject({ status: 'revoked' });
    const taskTypes = await typesOf(taskStream(task));
    expect(taskTypes.slice(0, 2)).toEqual(['task.available', 'task.claimed']);
    expect(taskTypes.filter((t) => t === 'task.lease.revoked')).toHaveLength(1);
    const next = await typesOf(taskStream(task, 2));
    expect(next).toEqual(['task.available']);
  });
});
