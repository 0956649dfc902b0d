import { describe, expect, it } from 'vitest';
import { call, connect, type Era } from './helpers/mcp';
import {
  bodyOf,
  CONDUCTOR,
  createRun,
  documentOf,
  lastSeq,
  PlaneFollower,
  patch,
  runId,
  WORKER,
  WRITER,
} from './helpers/writer';

/** Seed 002's harness tools over MCP, driven by the official SDK client. */

const note = (markdown: string, proposal: boolean) => ({
  type: 'WriterAppendNote',
  section: 'findings',
  markdown,
  proposal,
});

describe.each<Era>(['session', 'sessionless'])('run document tools, %s era', (era) => {
  it('a worker proposes with message_actor, the writer accepts, and the document and revisions show it', async () => {
    const run = await createRun();
    const worker = await connect(era, { sub: WORKER, name: 'researcher' });
    const writer = await connect(era, { sub: WRITER, name: 'writer-app' });
    try {
      const proposed = await call(worker, 'message_actor', {
        run_id: run,
        message: {
          ...patch('findings', 'Consensus timestamps order a topic.', true),
          source_worker_id: WORKER,
        },
      });
      expect(proposed.isError).toBeFalsy();
      expect(proposed.structuredContent).toMatchObject({
        type: 'WriterAck',
        run_id: run,
        revision: 0,
        outcome: 'proposal',
        haid: `${WORKER}/researcher`,
      });
      expect(proposed.text).toEqual(proposed.structuredContent);
      const proposalId = proposed.structuredContent.proposal_id;

      const accept = { type: 'WriterAcceptProposal', proposal_id: proposalId };
      const merged = await call(writer, 'message_actor', {
        run_id: run,
        message: accept,
        message_id: 'accept-1',
      });
      expect(merged.structuredContent).toMatchObject({
        type: 'WriterAck',
        message_id: 'accept-1',
        revision: 1,
        outcome: 'merged',
      });
      // A retry with the same message_id hears the stored verdict; nothing changes.
      const again = await call(writer, 'message_actor', {
        run_id: run,
        message: accept,
        message_id: 'accept-1',
      });
      expect(again.structuredContent).toMatchObject({ ...merged.structuredContent, replay: true });

      const latest = await call(writer, 'read_run_document', { run_id: run });
      expect(latest.structuredContent).toMatchObject({ revision: 1, latest_revision: 1 });
      expect(bodyOf(latest.structuredContent, 'findings')).toBe(
        'Consensus timestamps order a topic.',
      );
      expect(latest.structuredContent.proposals).toEqual([
        expect.objectContaining({ proposal_id: proposalId, status: 'merged', merged_revision: 1 }),
      ]);
      const first = await call(worker, 'read_run_document', { run_id: run, revision: 0 });
      expect(first.structuredContent).toMatchObject({ revision: 0, latest_revision: 1 });
      expect(bodyOf(first.structuredContent, 'findings')).toBe('');

      const revs = await call(worker, 'list_run_revisions', { run_id: run });
      expect(revs.structuredContent).toMatchObject({ run_id: run, latest_revision: 1 });
      expect(revs.structuredContent.revisions).toEqual([
        expect.objectContaining({ revision: 0 }),
        expect.objectContaining({
          revision: 1,
          sender: WRITER,
          message_id: 'accept-1',
          proposal_id: proposalId,
        }),
      ]);
    } finally {
      await worker.close();
      await writer.close();
    }
  });

  it('answers a WriterReject as a result, not a tool error, and stores it like the REST route', async () => {
    const run = await createRun();
    const worker = await connect(era, { sub: WORKER });
    try {
      const before = await lastSeq(run);
      const rejected = await call(worker, 'message_actor', {
        run_id: run,
        message: note('straight into canon', false),
      });
      expect(rejected.isError).toBeFalsy();
      expect(rejected.structuredContent).toMatchObject({ type: 'WriterReject', revision: 0 });
      expect(String(rejected.structuredContent.reason)).toMatch(/send this as a proposal/);
      // The message and its verdict are stored (a retry hears it again), canon is not changed.
      expect(await lastSeq(run)).toBe(before + 2);
      expect((await documentOf(run)).body.revision).toBe(0);
    } finally {
      await worker.close();
    }
  });

  it("request_conductor reaches the conductors' mailbox, with its correlation", async () => {
    const run = await createRun();
    const worker = await connect(era, { sub: WORKER });
    try {
      const asked = await call(worker, 'request_conductor', {
        run_id: run,
        kind: 'spawn.worker',
        payload: { role: 'critic' },
        correlation: 'trace-7',
      });
      expect(asked.structuredContent).toMatchObject({
        type: 'WriterAck',
        outcome: 'delivered',
        revision: 0,
      });
      const box = await PlaneFollower.open(run, 'mailbox', 0, CONDUCTOR);
      await box.until(() => box.wires.length === 1);
      box.close();
      expect(box.wires[0]?.payload).toMatchObject({
        to: [CONDUCTOR],
        from: WORKER,
        message_id: asked.structuredContent.message_id,
        message_type: 'conductor.request',
        message: { kind: 'spawn.worker', payload: { role: 'critic' }, correlation: 'trace-7' },
      });
    } finally {
      await worker.close();
    }
  });
});

describe('run document tools refuse bad arguments', () => {
  it('with a tool error naming the argument, and store nothing', async () => {
    const run = await createRun();
    const worker = await connect('session', { sub: WORKER });
    const writer = await connect('session', { sub: WRITER });
    try {
      const first = await call(worker, 'message_actor', {
        run_id: run,
        message: note('taken', true),
        message_id: 'dup-1',
      });
      expect(first.structuredContent.type).toBe('WriterAck');
      const before = await lastSeq(run);
      const cases: [typeof worker, string, Record<string, unknown>, string, RegExp][] = [
        [
          worker,
          'message_actor',
          { run_id: 'not-a-run', message: note('x', true) },
          'run_id',
          /ULID/,
        ],
        [
          worker,
          'message_actor',
          { run_id: runId(), message: note('x', true) },
          'run_id',
          /does not exist/,
        ],
        [
          worker,
          'message_actor',
          { run_id: run, message: { ...note('x', true), type: 'WriterShout' } },
          'message.type',
          /type must be one of/,
        ],
        [
          worker,
          'message_actor',
          {
            run_id: run,
            message: {
              type: 'WriterApplyPatch',
              section: 'findings',
              proposal: true,
              ops: [{ op: 'replace', path: 'body', value: 'x' }],
            },
          },
          'message.ops.0.path',
          /JSON Pointer/,
        ],
        [
          worker,
          'message_actor',
          { run_id: run, message: { ...note('x', true), task_id: 'T-1' } },
          'message',
          /task_id/,
        ],
        [
          worker,
          'message_actor',
          { run_id: run, message: { ...note('x', true), run_id: runId() } },
          'run_id',
          /differs/,
        ],
        [
          worker,
          'message_actor',
          { run_id: run, message: note('other text', true), message_id: 'dup-1' },
          'message_id',
          /./,
        ],
        [worker, 'request_conductor', { run_id: run, kind: 'Spawn Worker' }, 'kind', /lower-case/],
        [
          writer,
          'read_run_document',
          { run_id: run, revision: 7 },
          'revision',
          /revisions go from 0 to 0/,
        ],
        [writer, 'list_run_revisions', { run_id: runId() }, 'run_id', /does not exist/],
      ];
      for (const [client, tool, args, argument, detail] of cases) {
        const res = await call(client, tool, args);
        expect(res.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
        expect(res.text.problem, `${tool} ${JSON.stringify(args)}`).toMatchObject({ argument });
        expect(String(res.text.error)).toMatch(new RegExp(`^argument "${argument}": `));
        expect(String(res.text.error)).toMatch(detail);
      }
      expect(await lastSeq(run)).toBe(before);
      const doc = await documentOf(run);
      expect(doc.body.revision).toBe(0);
      expect(doc.body.proposals).toHaveLength(1);
    } finally {
      await worker.close();
      await writer.close();
    }
  });
});
