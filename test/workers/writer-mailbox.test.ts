import { describe, expect, it } from 'vitest';
import {
  CONDUCTOR,
  createRun,
  HUMAN,
  message,
  note,
  PlaneFollower,
  patch,
  WORKER,
  WRITER,
} from './helpers/writer';

/** The writer's live mailbox (seed 002, Option A): WebSocket with resume, like any stream follow. */

describe("the writer's mailbox", () => {
  it('delivers proposals and revision requests to the writer live, and resumes after a disconnect from after_seq', async () => {
    const run = await createRun();
    const live = await PlaneFollower.open(run, 'mailbox', 0);
    const a = await message(run, WORKER, patch('findings', 'one', true));
    const b = await message(run, HUMAN, {
      type: 'WriterRequestRevision',
      section: 'summary',
      markdown: 'tighten the summary',
    });
    await live.until(() => live.wires.length === 2);
    live.close();
    expect(live.wires.map((w) => [w.payload.message_id, w.payload.to])).toEqual([
      [a.body.message_id, [WRITER]],
      [b.body.message_id, [WRITER]],
    ]);
    // Offline meanwhile: a canon change (not mail), a rejected message (not mail), a proposal.
    await message(run, WRITER, patch('summary', 'canon', false));
    await message(run, WORKER, patch('findings', 'not a proposal', false));
    const c = await message(run, WORKER, note('findings', 'two', true));
    const resumed = await PlaneFollower.open(run, 'mailbox', 2);
    await resumed.until(() => resumed.wires.length === 1);
    resumed.close();
    expect(
      resumed.wires.map((w) => [w.stream_seq, w.payload.message_id, w.payload.revision]),
    ).toEqual([[3, c.body.message_id, 1]]);
  });

  it('addresses a ConductorRequest to the conductors, with its correlation riding along', async () => {
    const run = await createRun();
    const res = await message(run, WORKER, {
      type: 'ConductorRequest',
      kind: 'spawn.worker',
      payload: { role: 'critic' },
      correlation: 'trace-42',
    });
    expect(res.body).toMatchObject({ type: 'WriterAck', outcome: 'delivered', revision: 0 });
    const box = await PlaneFollower.open(run, 'mailbox', 0, CONDUCTOR);
    await box.until(() => box.wires.length === 1);
    box.close();
    expect(box.wires[0]?.payload).toMatchObject({
      to: [CONDUCTOR],
      message_type: 'conductor.request',
      message: { kind: 'spawn.worker', payload: { role: 'critic' }, correlation: 'trace-42' },
    });
  });
});
