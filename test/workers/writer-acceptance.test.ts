import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  CONDUCTOR,
  call,
  createRun,
  documentOf,
  HUMAN,
  message,
  note,
  PlaneFollower,
  patch,
  progress,
  revisionsOf,
  runId,
  WORKER,
  WRITER,
} from './helpers/writer';

/** Seed 002's seven acceptance criteria, each as a behaviour a client observes over HTTP/WS. */

const SECTIONS = [
  { id: 'summary', title: 'Summary', body: 'Prompt: how do HCS topics order messages?' },
  { id: 'findings', title: 'Findings' },
];

/** A small research run: findings as proposals, the writer merges one and writes the synthesis. */
async function researchRun(run: string, traceEvery: ((i: number) => Promise<void>) | null) {
  const found: string[] = [];
  for (let i = 1; i <= 3; i++) {
    await traceEvery?.(i);
    const p = await message(run, WORKER, {
      type: 'WriterAppendNote',
      section: 'findings',
      markdown: `finding ${i}`,
      proposal: true,
      source_worker_id: WORKER,
    });
    found.push(String(p.body.message_id));
  }
  for (const id of found.slice(0, 2))
    await message(run, WRITER, { type: 'WriterAcceptProposal', proposal_id: id });
  await message(
    run,
    WRITER,
    patch('summary', 'Synthesis: consensus timestamps order a topic.', false),
  );
  await message(run, WRITER, {
    type: 'WriterMarkSectionState',
    section: 'summary',
    state: 'final',
  });
  return (await documentOf(run)).body;
}

describe("seed 002's acceptance criteria", () => {
  it('(1) the run document opens once, no stub reload loop', async () => {
    const run = runId();
    const create = {
      run_id: run,
      title: 'Research run',
      sections: SECTIONS,
      writer: WRITER,
      conductors: [CONDUCTOR],
      workers: [WORKER],
    };
    expect((await call('POST', '/runs', CONDUCTOR, create)).status).toBe(201);
    const opened = await documentOf(run);
    expect(opened.status).toBe(200);
    expect(bodyOf(opened.body, 'summary')).toBe('Prompt: how do HCS topics order messages?');
    await message(run, WRITER, patch('findings', 'first live text', false));
    // The submit is retried (a reload, a flaky network): it replays, it never resets to a stub.
    const retried = await call('POST', '/runs', CONDUCTOR, create);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('Idempotent-Replay')).toBe('true');
    const other = await call('POST', '/runs', CONDUCTOR, { ...create, sections: [{ id: 'stub' }] });
    expect(other.status).toBe(409);
    expect(other.body.type).toBe('/problems/run-exists');
    for (let i = 0; i < 3; i++) {
      const again = await documentOf(run);
      expect(again.body.revision).toBe(1);
      expect(bodyOf(again.body, 'findings')).toBe('first live text');
      expect(again.headers.get('ETag')).toBe('"1"');
    }
  });

  it('(2) the document evolves from the initial context to the live document', async () => {
    const run = await createRun();
    const final = await researchRun(run, null);
    expect(final.revision).toBe(4);
    const sections = (
      final.document as {
        sections: Record<string, { body: string; notes: string[]; state: string }>;
      }
    ).sections;
    expect(sections.findings?.notes).toEqual(['finding 1', 'finding 2']);
    expect(sections.summary).toMatchObject({
      body: 'Synthesis: consensus timestamps order a topic.',
      state: 'final',
    });
    const initial = await documentOf(run, 0);
    expect(bodyOf(initial.body, 'summary')).toBe('Prompt: how do HCS topics order messages?');
    const diff = await call('GET', `/runs/${run}/diff?from=0&to=4`, WRITER);
    expect(diff.body.ops).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: '/sections/summary/body',
          value: 'Synthesis: consensus timestamps order a topic.',
        }),
      ]),
    );
  });

  it('(3) worker progress is visible continuously, before anything is merged', async () => {
    const run = await createRun();
    const trace = await PlaneFollower.open(run, 'trace', 0);
    for (let i = 1; i <= 20; i++) {
      await progress(run, WORKER, i);
      await trace.until(() => trace.wires.length === i);
      expect(trace.wires.at(-1)?.payload.message).toBe(`step ${i}`);
    }
    trace.close();
    expect(trace.wires.map((w) => w.stream_seq)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect((await documentOf(run)).body.revision).toBe(0);
  });

  it('(4) findings appear as proposals before the final synthesis', async () => {
    const run = await createRun();
    const mailbox = await PlaneFollower.open(run, 'mailbox', 0);
    const finding = await message(run, WORKER, {
      type: 'WriterAppendNote',
      section: 'findings',
      markdown: 'HCS assigns consensus timestamps',
      proposal: true,
      source_worker_id: WORKER,
    });
    expect(finding.body).toMatchObject({ type: 'WriterAck', outcome: 'proposal', revision: 0 });
    await mailbox.until(() => mailbox.wires.length === 1);
    expect(mailbox.wires[0]?.payload).toMatchObject({
      to: [WRITER],
      message_id: finding.body.message_id,
      from: WORKER,
      message_type: 'writer.append_note',
    });
    const before = await documentOf(run);
    expect(before.body.proposals).toEqual([
      expect.objectContaining({ status: 'open', sender: WORKER }),
    ]);
    await message(run, WRITER, {
      type: 'WriterAcceptProposal',
      proposal_id: finding.body.message_id,
    });
    await message(run, WRITER, patch('summary', 'final synthesis', false));
    const history = await revisionsOf(run);
    expect(history.revisions.map((r) => [r.revision, r.proposal_id])).toEqual([
      [0, null],
      [1, finding.body.message_id],
      [2, null],
    ]);
    mailbox.close();
  });

  it('(5) the conductor makes no document change', async () => {
    const run = await createRun();
    const tries = [
      patch('findings', 'from the conductor', false),
      patch('findings', 'from the conductor', true),
      { type: 'WriterAppendNote', section: 'findings', markdown: 'x', proposal: false },
      { type: 'WriterMarkSectionState', section: 'findings', state: 'final' },
    ];
    for (const t of tries) {
      const res = await message(run, CONDUCTOR, t);
      expect(res.body.type).toBe('WriterReject');
    }
    const request = await message(run, WORKER, {
      type: 'ConductorRequest',
      kind: 'spawn.worker',
      payload: { role: 'researcher' },
      correlation: 'diag-1',
    });
    expect(request.body).toMatchObject({ type: 'WriterAck', outcome: 'delivered' });
    const doc = await documentOf(run);
    expect(doc.body.revision).toBe(0);
    expect(doc.body.proposals).toEqual([]);
    expect((await revisionsOf(run)).revisions).toHaveLength(1);
  });

  it('(6) the writer is the only authority applying changes', async () => {
    const run = await createRun();
    for (const who of [WORKER, HUMAN]) {
      const res = await message(run, who, patch('findings', `${who} edit`, false));
      expect(res.body.type).toBe('WriterReject');
      expect(String(res.body.reason)).toContain('send this as a proposal');
    }
    const human = await message(run, HUMAN, note('summary', 'please cite sources', true));
    await researchRun(run, null);
    await message(run, WRITER, {
      type: 'WriterAcceptProposal',
      proposal_id: human.body.message_id,
    });
    const history = await revisionsOf(run);
    expect(history.revisions.slice(1).every((r) => r.sender === WRITER)).toBe(true);
    expect(history.revisions.at(-1)).toMatchObject({ proposal_id: human.body.message_id });
  });

  it('(7) losing or delaying trace Wires blocks nothing: the same canon with, without and after them', async () => {
    const withTrace = await createRun();
    const a = await researchRun(withTrace, (i) =>
      progress(withTrace, WORKER, i).then(() => undefined),
    );
    const dropped = await createRun();
    const b = await researchRun(dropped, null); // every trace Wire lost
    const delayed = await createRun();
    const c = await researchRun(delayed, null);
    for (let i = 1; i <= 3; i++) await progress(delayed, WORKER, i); // trace arrives after completion
    expect(b.document).toEqual(a.document);
    expect(c.document).toEqual(a.document);
    expect([a.revision, b.revision, c.revision]).toEqual([4, 4, 4]);
    expect((await documentOf(delayed)).body.revision).toBe(4);
  });
});
