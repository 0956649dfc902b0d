import { describe, expect, it } from 'vitest';
import { expectProblem, lastSeq } from './helpers/attack';
import { authHeaders } from './helpers/auth';
import { claim, lifecycle, offer, taskStream, uid, wiresOf } from './helpers/coordination';
import { Subscriber } from './helpers/subscriber';
import { post, wire11 } from './helpers/wires';

describe('only the lease holder may post a task lifecycle', () => {
  it('refuses lifecycle Wires from a non-holder, even with the holder fencing token', async () => {
    const task = uid('t');
    await offer(task, 'developer');
    const won = await claim(task, 'holder');
    expect(won.status).toBe(201);
    const token = String(won.body.fencing_token);
    const stream = taskStream(task);
    const before = await lastSeq(stream);
    const sub = await Subscriber.open(stream, before);

    // Mallory signs as herself: the stream's decider says she does not hold the lease.
    const stolen = await lifecycle(task, 'mallory', 'task.complete', token);
    expect(stolen.status).toBe(403);
    expect(stolen.body).toMatchObject({
      type: '/problems/not-lease-holder',
      holder: 'agent:holder',
    });

    // Mallory claims to be the holder: the token's subject gives her away first.
    const forged = await post(
      stream,
      wire11(stream, {
        type: 'task.complete',
        sender: 'agent:holder',
        payload: { task_id: task, fencing_token: token },
      }),
      await authHeaders('agent:mallory'),
    );
    await expectProblem(forged, 403, 'forbidden');

    expect(await lastSeq(stream)).toBe(before);
    expect((await wiresOf(stream)).map((w) => w.type)).toEqual(['task.available', 'task.claimed']);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.seqs).toEqual([]);
    sub.close();
    expect((await lifecycle(task, 'holder', 'task.complete', token)).status).toBe(201);
  });
});
