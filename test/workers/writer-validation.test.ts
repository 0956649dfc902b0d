import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import {
  BASE,
  CONDUCTOR,
  call,
  createRun,
  lastSeq,
  msgId,
  runId,
  WORKER,
  WRITER,
} from './helpers/writer';

/** Bad input on every run route: a precise 4xx problem naming the field, and nothing stored. */

function expectProblem(
  res: { status: number; body: Record<string, unknown>; headers: Headers },
  status: number,
  detail: RegExp,
) {
  expect(res.status).toBe(status);
  expect(res.headers.get('Content-Type')).toContain('application/problem+json');
  expect(String(res.body.detail)).toMatch(detail);
}

describe('bad input to the run routes', () => {
  it('refuses a malformed run creation, naming the field, and creates nothing', async () => {
    const id = runId();
    const base = { run_id: id, sections: [{ id: 'a' }], writer: WRITER };
    const cases: [unknown, RegExp][] = [
      [{ ...base, run_id: 'task-17' }, /run_id: run_id must be a ULID-like id/],
      [{ ...base, sections: [] }, /sections: a run needs at least one section/],
      [{ ...base, sections: [{ id: 'a' }, { id: 'a' }] }, /section ids must be distinct/],
      [{ ...base, writer: 'writer-bot' }, /writer: an identity looks like/],
      [{ ...base, writers: [WRITER] }, /writers/],
      [{ ...base, conductors: [WRITER] }, /holds two capabilities/],
    ];
    for (const [body, detail] of cases) {
      const res = await call('POST', '/runs', CONDUCTOR, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(String(res.body.detail)).toMatch(detail);
    }
    expect((await call('GET', `/runs/${id}/document`, WRITER)).status).toBe(404);
    const raw = await SELF.fetch(`${BASE}/runs`, {
      method: 'POST',
      headers: { ...(await authHeaders(CONDUCTOR)), 'Content-Type': 'application/json' },
      body: '{"run_id":',
    });
    expect(raw.status).toBe(400);
    const text = await SELF.fetch(`${BASE}/runs`, {
      method: 'POST',
      headers: { ...(await authHeaders(CONDUCTOR)), 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
  });

  it('refuses malformed actor messages, naming the field, and stores nothing', async () => {
    const run = await createRun();
    const before = await lastSeq(run);
    const ok = {
      type: 'WriterApplyPatch',
      message_id: msgId(),
      run_id: run,
      section: 'findings',
      proposal: false,
    };
    // A good patch but for its run_id, which each case sets (or replaces).
    const unrouted = {
      ...ok,
      ops: [{ op: 'replace', path: '/body', value: 'x' }],
      run_id: undefined,
    };
    const cases: [unknown, number, RegExp][] = [
      [{ ...unrouted, task_id: 'T-1' }, 422, /run_id is the only control key.*task_id/],
      [{ ...unrouted, correlation: 'c-1' }, 422, /run_id is the only control key.*correlation/],
      [{ ...unrouted, run_id: runId() }, 422, /differs from the path/],
      [{ ...ok, type: 'WriterShout', ops: [] }, 422, /type must be one of WriterApplyPatch/],
      [{ ...ok, ops: [] }, 422, /ops: ops must hold at least one operation/],
      [{ ...ok, ops: [{ op: 'jump', path: '/body' }] }, 422, /ops.0.op: op must be one of/],
      [
        { ...ok, ops: [{ op: 'replace', path: 'body', value: 1 }] },
        422,
        /ops.0.path: path must be a JSON Pointer/,
      ],
      [{ ...ok, ops: [{ op: 'add', path: '/__proto__/x', value: 1 }] }, 422, /__proto__/],
      [
        { ...ok, ops: [{ op: 'replace', path: '/body', value: 'x' }], proposal: 'yes' },
        422,
        /proposal: proposal must be true or false/,
      ],
      [
        { ...ok, ops: [{ op: 'replace', path: '/body', value: 'x' }], section: 'Bad Section' },
        422,
        /section: a section id/,
      ],
      [
        { ...ok, ops: [{ op: 'replace', path: '/body', value: 'x' }], message_id: '' },
        422,
        /message_id/,
      ],
      [
        { ...ok, ops: [{ op: 'replace', path: '/body', value: 'x' }], sender: WRITER },
        422,
        /sender/,
      ],
      [
        {
          type: 'WriterAppendNote',
          message_id: msgId(),
          run_id: run,
          section: 'findings',
          markdown: '',
          proposal: true,
        },
        422,
        /markdown: markdown must not be empty/,
      ],
      [{ type: 'WriterAcceptProposal', message_id: msgId(), run_id: run }, 422, /proposal_id/],
      [
        { type: 'ConductorRequest', message_id: msgId(), run_id: run, kind: 'Spawn Now' },
        422,
        /kind: kind is a lower-case name/,
      ],
    ];
    for (const [body, status, detail] of cases) {
      const res = await call('POST', `/runs/${run}/messages`, WORKER, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('Content-Type')).toContain('application/problem+json');
      expect(String(res.body.detail), JSON.stringify(body)).toMatch(detail);
    }
    expectProblem(
      await call('POST', '/runs/not-a-run/messages', WRITER, ok),
      400,
      /path run_id: run_id must be a ULID-like id/,
    );
    expectProblem(
      await call('POST', `/runs/${runId()}/messages`, WRITER, {
        ...ok,
        ops: [{ op: 'replace', path: '/body', value: 'x' }],
        run_id: undefined,
      }),
      422,
      /run_id: required/,
    );
    const missing = runId();
    expectProblem(
      await call('POST', `/runs/${missing}/messages`, WRITER, {
        ...ok,
        run_id: missing,
        ops: [{ op: 'replace', path: '/body', value: 'x' }],
      }),
      404,
      /does not exist; create it with POST \/v1\/runs/,
    );
    expect(await lastSeq(run)).toBe(before);
    // The same message_id with other content is a conflict, not a second message.
    const first = {
      ...ok,
      message_id: msgId(),
      ops: [{ op: 'replace', path: '/body', value: 'x' }],
    };
    expect((await call('POST', `/runs/${run}/messages`, WRITER, first)).status).toBe(201);
    const clash = await call('POST', `/runs/${run}/messages`, WRITER, {
      ...first,
      ops: [{ op: 'replace', path: '/body', value: 'y' }],
    });
    expectProblem(clash, 409, /already stored/);
    expect(await lastSeq(run)).toBe(before + 2);
  });

  it('refuses bad reads: run ids, revisions, query parameters', async () => {
    const run = await createRun();
    expectProblem(
      await call('GET', `/runs/${run}/document?revision=5`, WRITER),
      404,
      /revision 5 does not exist; run revisions go from 0 to 0/,
    );
    expectProblem(await call('GET', `/runs/${run}/document?revision=-1`, WRITER), 400, /revision/);
    expectProblem(
      await call('GET', `/runs/${run}/document?rev=1`, WRITER),
      400,
      /rev is not a parameter/,
    );
    expectProblem(
      await call('GET', `/runs/${run}/diff?from=0&to=3`, WRITER),
      404,
      /revision 3 does not exist/,
    );
    expectProblem(await call('GET', `/runs/${run}/diff?from=x`, WRITER), 400, /from/);
    expectProblem(await call('GET', `/runs/${runId()}/revisions`, WRITER), 404, /does not exist/);
    expectProblem(
      await call('GET', '/runs/01KHEYMKVMMD67SV6P4HWKSEFU/revisions', WRITER),
      400,
      /run_id must be a ULID-like id/,
    );
    expectProblem(await call('GET', `/runs/${run}/mailbox?limit=0`, WRITER), 400, /limit/);
    expectProblem(await call('GET', `/runs/${run}/trace/ws`, WRITER), 400, /WebSocket upgrade/);
  });

  it('refuses Wires the run writes itself, and trace Wires that name another run or type', async () => {
    const run = await createRun();
    const before = await lastSeq(run);
    const wire = (
      stream: string,
      type: string,
      payload: Record<string, unknown>,
      wireId = msgId('w'),
    ) => ({
      wire: '1.1',
      wire_id: wireId,
      stream_id: stream,
      correlation_id: null,
      causation_id: null,
      type,
      sender: WRITER,
      ts: new Date().toISOString(),
      payload,
    });
    const forged = await call(
      'POST',
      `/streams/run:${run}/wires`,
      WRITER,
      wire(`run:${run}`, 'writer.ack', {
        run_id: run,
        message_id: 'x',
        revision: 9,
        outcome: 'canon',
      }),
    );
    expectProblem(forged, 403, /written by the run itself/);
    const verdictId = await call(
      'POST',
      `/streams/run:${run}/wires`,
      WRITER,
      wire(
        `run:${run}`,
        'writer.append_note',
        { run_id: run, section: 'findings', markdown: 'x', proposal: false },
        'verdict:x',
      ),
    );
    expect(verdictId.status).toBe(422);
    const mail = await call(
      'POST',
      `/streams/run-mailbox:${run}/wires`,
      WRITER,
      wire(`run-mailbox:${run}`, 'run.mail', {
        run_id: run,
        to: [WRITER],
        message_id: 'x',
        message_type: 't',
        from: WRITER,
        revision: 0,
        message: {},
      }),
    );
    expectProblem(mail, 403, /run's mailbox/);
    const otherRun = await call('POST', `/streams/run-trace:${run}/wires`, WORKER, {
      ...wire(`run-trace:${run}`, 'worker.progress', { run_id: runId() }),
      sender: WORKER,
    });
    expectProblem(otherRun, 422, /payload.run_id must be/);
    const otherType = await call('POST', `/streams/run-trace:${run}/wires`, WORKER, {
      ...wire(`run-trace:${run}`, 'note.added', { run_id: run }),
      sender: WORKER,
    });
    expectProblem(otherType, 422, /trace carries worker.progress and worker.finding only/);
    expect(await lastSeq(run)).toBe(before);
    expect((await call('GET', `/runs/${run}/trace`, WRITER)).body.last_seq).toBe(0);
  });
});
