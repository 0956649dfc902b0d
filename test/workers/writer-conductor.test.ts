import { expect, it } from 'vitest';
import { call as callTool, connect } from './helpers/mcp';
import {
  bodyOf,
  CONDUCTOR,
  CONDUCTOR_REFUSED,
  call,
  createRun,
  documentOf,
  lastSeq,
  message,
  msgId,
  mutations,
  PlaneFollower,
  patch,
  revisionsOf,
  WORKER,
} from './helpers/writer';

/**
 * Seed 002: the conductor orchestrates and never writes. Every document
 * change it tries — over HTTP, over a run's WebSocket and over MCP — is
 * refused, and canon, the proposals and the revisions stay as they were.
 */

/** A run with one open proposal of the worker, and its control stream's last seq. */
async function runWithProposal() {
  const run = await createRun();
  const p = await message(run, WORKER, patch('findings', 'the worker finding', true));
  return { run, proposalId: String(p.body.message_id), seq: await lastSeq(run) };
}

async function expectUntouched(run: string, proposalId: string) {
  const doc = await documentOf(run);
  expect(doc.body.revision).toBe(0);
  expect(bodyOf(doc.body, 'findings')).toBe('');
  expect(doc.body.proposals).toEqual([
    expect.objectContaining({ proposal_id: proposalId, status: 'open' }),
  ]);
  expect((await revisionsOf(run)).revisions).toHaveLength(1);
}

const directPatch = (run: string) => ({
  wire: '1.1',
  wire_id: msgId('direct'),
  stream_id: `run:${run}`,
  type: 'writer.apply_patch',
  sender: CONDUCTOR,
  ts: new Date().toISOString(),
  payload: {
    run_id: run,
    section: 'findings',
    ops: [{ op: 'replace', path: '/body', value: 'x' }],
    proposal: false,
  },
});

it('refuses every mutation from the conductor over HTTP: /v1/runs and the stream append', async () => {
  const { run, proposalId } = await runWithProposal();
  for (const attempt of mutations(proposalId)) {
    const res = await message(run, CONDUCTOR, attempt);
    expect(res.status).toBe(201);
    expect(res.headers.get('Writer-Verdict')).toBe('WriterReject');
    expect(String(res.body.reason), String(attempt.type)).toContain(CONDUCTOR_REFUSED);
  }
  const direct = await call('POST', `/streams/run:${run}/wires`, CONDUCTOR, directPatch(run));
  expect(direct.status).toBe(201);
  expect(direct.body).toMatchObject({ verdict: 'WriterReject' });
  await expectUntouched(run, proposalId);
});

it('refuses every mutation from the conductor over MCP: message_actor and append_wire', async () => {
  const { run, proposalId } = await runWithProposal();
  const conductor = await connect('session', { sub: CONDUCTOR, name: 'conductor' });
  try {
    for (const attempt of mutations(proposalId)) {
      const res = await callTool(conductor, 'message_actor', { run_id: run, message: attempt });
      expect(res.isError, String(attempt.type)).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ type: 'WriterReject', revision: 0 });
      expect(String(res.structuredContent.reason)).toContain(CONDUCTOR_REFUSED);
    }
    const { wire_id, type, payload } = directPatch(run);
    const direct = await callTool(conductor, 'append_wire', {
      stream_id: `run:${run}`,
      type,
      payload,
      wire_id,
    });
    expect(direct.structuredContent).toMatchObject({ verdict: 'WriterReject' });
  } finally {
    await conductor.close();
  }
  await expectUntouched(run, proposalId);
});

it("refuses every mutation from the conductor over WebSocket: a run's sockets only take acks and pings", async () => {
  const { run, proposalId, seq } = await runWithProposal();
  for (const plane of ['wires', 'mailbox']) {
    const socket = await PlaneFollower.open(run, plane, 0, CONDUCTOR);
    const frames = mutations(proposalId).flatMap((m) => {
      const body = { ...m, run_id: run, message_id: msgId('ws') };
      return [JSON.stringify(body), JSON.stringify({ kind: m.type, ...body })];
    });
    for (const frame of frames) socket.ws.send(frame);
    const errors = () => socket.frames.filter((f) => f.kind === 'error');
    await socket.until(() => errors().length === frames.length);
    socket.close();
    expect(errors()[0]?.detail).toMatch(/expected "ack" or "ping"/);
  }
  expect(await lastSeq(run)).toBe(seq);
  await expectUntouched(run, proposalId);
});

it('rejects a ConductorRequest in a run without conductors: nobody would receive it', async () => {
  const run = await createRun({ conductors: [] });
  const res = await message(run, WORKER, {
    type: 'ConductorRequest',
    kind: 'spawn.worker',
    payload: { role: 'critic' },
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    type: 'WriterReject',
    reason: 'the run has no conductor to deliver a ConductorRequest to',
  });
  const mailbox = await call('GET', `/runs/${run}/mailbox?after_seq=0`, WORKER);
  expect(mailbox.body.wires).toEqual([]);
});
