import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  call,
  createRun,
  documentOf,
  HUMAN,
  lastSeq,
  message,
  msgId,
  note,
  patch,
  revisionsOf,
  WORKER,
  WRITER,
} from './helpers/writer';

describe('the writer authority of a run', () => {
  it("applies the writer's canon patch and acknowledges the new revision", async () => {
    const run = await createRun();
    const res = await message(
      run,
      WRITER,
      patch('findings', 'HCS orders by consensus timestamp.', false),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('Writer-Verdict')).toBe('WriterAck');
    expect(res.body).toMatchObject({
      type: 'WriterAck',
      run_id: run,
      revision: 1,
      outcome: 'canon',
    });
    const doc = await documentOf(run);
    expect(doc.body.revision).toBe(1);
    expect(bodyOf(doc.body, 'findings')).toBe('HCS orders by consensus timestamp.');
  });

  it('answers a retry of the same message_id with the same verdict and changes nothing', async () => {
    const run = await createRun();
    const body = { message_id: msgId(), ...patch('findings', 'once', false) };
    const first = await call('POST', `/runs/${run}/messages`, WRITER, { run_id: run, ...body });
    const again = await call('POST', `/runs/${run}/messages`, WRITER, { run_id: run, ...body });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replay')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await revisionsOf(run)).latest_revision).toBe(1);
  });

  it('rejects a patch that does not apply, with the reason, and changes nothing', async () => {
    const run = await createRun();
    const res = await message(run, WRITER, {
      type: 'WriterApplyPatch',
      section: 'findings',
      ops: [
        { op: 'replace', path: '/body', value: 'half' },
        { op: 'remove', path: '/missing' },
      ],
      proposal: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'WriterReject', revision: 0 });
    expect(String(res.body.reason)).toContain('op 1 (remove /missing)');
    const doc = await documentOf(run);
    expect(doc.body.revision).toBe(0);
    expect(bodyOf(doc.body, 'findings')).toBe('');
  });

  it('rejects an op that would change a member inside a string, naming it, on every route', async () => {
    const run = await createRun();
    const before = await lastSeq(run);
    // `body` and `title` hold strings: rfc6902 would assign into them.
    for (const [sender, op, proposal] of [
      [WRITER, { op: 'add', path: '/body/x', value: 'y' }, false],
      [WORKER, { op: 'remove', path: '/title/length' }, true],
    ] as const) {
      const res = await message(run, sender, {
        type: 'WriterApplyPatch',
        section: 'summary',
        ops: [{ op: 'replace', path: '/body', value: 'first' }, op],
        proposal,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ type: 'WriterReject', revision: 0 });
      const parent = op.path.slice(0, op.path.lastIndexOf('/'));
      expect(res.body.reason).toBe(
        `op 1 (${op.op} ${op.path}): ${parent} holds no object or array to change a member of`,
      );
    }
    // The generic append route reaches the same decider: a verdict, not a 500.
    const generic = await call('POST', `/streams/run:${run}/wires`, WORKER, {
      wire: '1.1',
      wire_id: msgId(),
      stream_id: `run:${run}`,
      type: 'writer.apply_patch',
      sender: WORKER,
      ts: new Date().toISOString(),
      payload: {
        run_id: run,
        section: 'findings',
        ops: [{ op: 'add', path: '/state/x', value: 1 }],
        proposal: true,
      },
    });
    expect(generic.status).toBe(201);
    // Each message and its reject verdict; canon unchanged.
    expect(await lastSeq(run)).toBe(before + 6);
    const doc = await documentOf(run);
    expect(doc.body.revision).toBe(0);
    expect(bodyOf(doc.body, 'summary')).toBe('Prompt: how do HCS topics order messages?');
  });

  it('rejects a revision request naming a section the run does not have', async () => {
    const run = await createRun();
    const res = await message(run, WORKER, {
      type: 'WriterRequestRevision',
      section: 'nope',
      markdown: 'please redo',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'WriterReject', revision: 0 });
    expect(String(res.body.reason)).toContain('section "nope" does not exist');
    const named = await message(run, WORKER, {
      type: 'WriterRequestRevision',
      section: 'findings',
      markdown: 'please redo',
    });
    expect(named.body).toMatchObject({ type: 'WriterAck', outcome: 'delivered' });
  });

  it("turns a worker's message into a proposal acknowledged against the current revision", async () => {
    const run = await createRun();
    await message(run, WRITER, patch('summary', 'canon one', false));
    const res = await message(run, WORKER, {
      ...patch('findings', 'a finding', true),
      source_worker_id: WORKER,
    });
    expect(res.body).toMatchObject({ type: 'WriterAck', revision: 1, outcome: 'proposal' });
    const doc = await documentOf(run);
    expect(doc.body.revision).toBe(1);
    expect(bodyOf(doc.body, 'findings')).toBe('');
    expect(doc.body.proposals).toEqual([
      expect.objectContaining({
        proposal_id: res.body.message_id,
        status: 'open',
        base_revision: 1,
        sender: WORKER,
      }),
    ]);
  });

  it("rejects a worker's canon change with a reason that says to send a proposal", async () => {
    const run = await createRun();
    const res = await message(run, WORKER, patch('findings', 'sneaky', false));
    expect(res.body.type).toBe('WriterReject');
    expect(String(res.body.reason)).toMatch(/only the writer .* send this as a proposal/);
    expect((await documentOf(run)).body.revision).toBe(0);
  });

  it('merges an accepted proposal as the next revision and marks it merged; a declined one stays out', async () => {
    const run = await createRun();
    const p1 = await message(run, WORKER, patch('findings', 'accept me', true));
    const p2 = await message(run, HUMAN, note('summary', 'a comment', true));
    const accepted = await message(run, WRITER, {
      type: 'WriterAcceptProposal',
      proposal_id: p1.body.message_id,
    });
    const declined = await message(run, WRITER, {
      type: 'WriterDeclineProposal',
      proposal_id: p2.body.message_id,
      reason: 'out of scope',
    });
    expect(accepted.body).toMatchObject({ type: 'WriterAck', revision: 1, outcome: 'merged' });
    expect(declined.body).toMatchObject({ type: 'WriterAck', revision: 1, outcome: 'declined' });
    const doc = await documentOf(run);
    expect(bodyOf(doc.body, 'findings')).toBe('accept me');
    const proposals = doc.body.proposals as {
      proposal_id: string;
      status: string;
      merged_revision: number | null;
    }[];
    expect(proposals.find((p) => p.proposal_id === p1.body.message_id)).toMatchObject({
      status: 'merged',
      merged_revision: 1,
    });
    expect(proposals.find((p) => p.proposal_id === p2.body.message_id)).toMatchObject({
      status: 'declined',
    });
    const again = await message(run, WRITER, {
      type: 'WriterAcceptProposal',
      proposal_id: p1.body.message_id,
    });
    expect(again.body).toMatchObject({ type: 'WriterReject' });
    expect(String(again.body.reason)).toContain('already merged');
    const revs = await revisionsOf(run);
    expect(revs.revisions.map((r) => r.revision)).toEqual([0, 1]);
    expect(revs.revisions[1]).toMatchObject({ sender: WRITER, proposal_id: p1.body.message_id });
  });

  it('refuses a sender with no capability in the run before storing anything', async () => {
    const run = await createRun();
    const res = await message(run, 'agent:stranger', patch('findings', 'x', true));
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('/problems/not-run-party');
    const wires = await call('GET', `/runs/${run}/wires`, WRITER);
    expect(wires.body.last_seq).toBe(1);
  });
});
