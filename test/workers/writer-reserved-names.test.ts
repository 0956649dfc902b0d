import { describe, expect, it } from 'vitest';
import {
  CONDUCTOR,
  call,
  createRun,
  documentOf,
  message,
  note,
  patch,
  runId,
  WORKER,
  WRITER,
} from './helpers/writer';

/**
 * Section and proposal names that Object.prototype also answers to
 * (`constructor`, `toString`, `__proto__` …) are names like any other: an
 * unknown one hears the seed's WriterReject, an existing one works.
 */

const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

/** A run whose only section is named `constructor`. */
async function constructorRun(): Promise<string> {
  const run = runId();
  const res = await call('POST', '/runs', CONDUCTOR, {
    run_id: run,
    title: 'Named like a member',
    sections: [{ id: 'constructor', title: 'Constructor', body: 'first' }],
    writer: WRITER,
    conductors: [CONDUCTOR],
    workers: [WORKER],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return run;
}

describe('a section named constructor that the run does not have', () => {
  it.each([
    ['WriterApplyPatch', patch('constructor', 'x', false)],
    ['WriterAppendNote', note('constructor', 'hello', false)],
    [
      'WriterMarkSectionState',
      { type: 'WriterMarkSectionState', section: 'constructor', state: 'final', proposal: false },
    ],
  ])(
    'answers %s with the reject for an unknown section and leaves canon as it was',
    async (_, body) => {
      const run = await createRun();
      const res = await message(run, WRITER, body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ type: 'WriterReject', revision: 0 });
      expect(String(res.body.reason)).toContain('section "constructor" does not exist');
      const doc = await documentOf(run);
      expect(doc.body.revision).toBe(0);
      expect(Object.keys((doc.body.document as { sections: object }).sections)).toEqual([
        'summary',
        'findings',
      ]);
    },
  );

  it('answers a worker proposal on it with the same reject', async () => {
    const run = await createRun();
    const res = await message(run, WORKER, note('constructor', 'hello', true));
    expect(res.status).toBe(201);
    expect(res.body.type).toBe('WriterReject');
    expect(String(res.body.reason)).toContain('section "constructor" does not exist');
  });
});

describe('a proposal named like an Object.prototype member that was never made', () => {
  it.each(PROTOTYPE_NAMES)(
    'is answered "does not exist" when the writer accepts or declines %s',
    async (id) => {
      const run = await createRun();
      for (const type of ['WriterAcceptProposal', 'WriterDeclineProposal']) {
        const res = await message(run, WRITER, { type, proposal_id: id });
        expect(res.status).toBe(201);
        expect(res.body.type).toBe('WriterReject');
        expect(res.body.reason).toBe(`proposal "${id}" does not exist in this run`);
      }
      expect((await documentOf(run)).body.proposals).toEqual([]);
    },
  );
});

describe('names like Object.prototype members that do exist', () => {
  it('patches, notes, finalises and merges proposals into a section named constructor', async () => {
    const run = await constructorRun();
    const patched = await message(run, WRITER, patch('constructor', 'second', false));
    expect(patched.body).toMatchObject({ type: 'WriterAck', outcome: 'canon', revision: 1 });
    const proposed = await message(run, WORKER, note('constructor', 'a finding', true));
    expect(proposed.body).toMatchObject({ type: 'WriterAck', outcome: 'proposal' });
    const merged = await message(run, WRITER, {
      type: 'WriterAcceptProposal',
      proposal_id: proposed.body.proposal_id,
    });
    expect(merged.body).toMatchObject({ type: 'WriterAck', outcome: 'merged', revision: 2 });
    const state = await message(run, WRITER, {
      type: 'WriterMarkSectionState',
      section: 'constructor',
      state: 'final',
    });
    expect(state.body).toMatchObject({ type: 'WriterAck', outcome: 'canon', revision: 3 });
    const doc = await documentOf(run);
    expect(doc.body.document).toMatchObject({
      order: ['constructor'],
      sections: {
        constructor: { title: 'Constructor', state: 'final', body: 'second', notes: ['a finding'] },
      },
    });
  });

  it('accepts a proposal whose message_id is toString once, then answers it is already merged', async () => {
    const run = await createRun();
    const proposed = await call('POST', `/runs/${run}/messages`, WORKER, {
      run_id: run,
      message_id: 'toString',
      ...note('findings', 'named like a member', true),
    });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({
      type: 'WriterAck',
      outcome: 'proposal',
      proposal_id: 'toString',
    });
    const accept = { type: 'WriterAcceptProposal', proposal_id: 'toString' };
    const merged = await message(run, WRITER, accept);
    expect(merged.body).toMatchObject({ type: 'WriterAck', outcome: 'merged', revision: 1 });
    const again = await message(run, WRITER, accept);
    expect(again.body).toMatchObject({
      type: 'WriterReject',
      reason: 'proposal "toString" is already merged',
    });
    const doc = await documentOf(run);
    expect(doc.body.proposals).toMatchObject([{ proposal_id: 'toString', status: 'merged' }]);
  });

  it('replays the verdict of a message whose message_id is constructor', async () => {
    const run = await createRun();
    const body = {
      run_id: run,
      message_id: 'constructor',
      ts: new Date().toISOString(),
      ...patch('findings', 'x', false),
    };
    const first = await call('POST', `/runs/${run}/messages`, WRITER, body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ type: 'WriterAck', outcome: 'canon', revision: 1 });
    const retry = await call('POST', `/runs/${run}/messages`, WRITER, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ type: 'WriterAck', outcome: 'canon', revision: 1 });
  });
});
