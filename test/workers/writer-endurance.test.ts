import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import {
  BASE,
  call,
  createRun,
  documentOf,
  msgId,
  PlaneFollower,
  revisionsOf,
  WRITER,
} from './helpers/writer';

/**
 * Seed 002's endurance packet and the concurrency bound: a run that lasts
 * hours on an accelerated clock (every message and trace Wire carries the
 * simulated time), and 20 workers proposing while the writer merges.
 */

const HOUR = 3_600_000;

async function traceAt(run: string, worker: string, i: number, at: number) {
  const res = await SELF.fetch(`${BASE}/streams/run-trace:${run}/wires`, {
    method: 'POST',
    headers: { ...(await authHeaders(worker)), 'Content-Type': 'application/json' },
    body: JSON.stringify({
      wire: '1.1',
      wire_id: `progress-${i}`,
      stream_id: `run-trace:${run}`,
      correlation_id: null,
      causation_id: null,
      type: 'worker.progress',
      sender: worker,
      ts: new Date(at).toISOString(),
      payload: { run_id: run, worker_id: worker, message: `step ${i}` },
    }),
  });
  expect(res.status).toBe(201);
}

describe('a long run and a crowded run', () => {
  it('endurance: three simulated hours of progress, proposals and merges end with every progress Wire in order, canon = accepted changes, revisions gap-free', async () => {
    const worker = 'agent:researcher-1';
    const run = await createRun({ workers: [worker] });
    const trace = await PlaneFollower.open(run, 'trace', 0);
    const start = Date.parse('2026-02-14T09:00:00Z');
    const STEPS = 120; // one step per simulated 90 s: three hours
    const accepted: string[] = [];
    let open: { id: string; text: string }[] = [];
    for (let i = 1; i <= STEPS; i++) {
      const at = start + (i * 3 * HOUR) / STEPS;
      await traceAt(run, worker, i, at);
      if (i % 4 === 0) {
        const text = `finding at step ${i}`;
        const res = await call('POST', `/runs/${run}/messages`, worker, {
          type: 'WriterAppendNote',
          message_id: msgId('p'),
          ts: new Date(at).toISOString(),
          run_id: run,
          section: 'findings',
          markdown: text,
          proposal: true,
          source_worker_id: worker,
        });
        expect(res.body).toMatchObject({ type: 'WriterAck', outcome: 'proposal' });
        open.push({ id: String(res.body.message_id), text });
      }
      if (i % 20 === 0) {
        // The writer merges some findings and declines every third.
        for (const [k, p] of open.entries()) {
          const decline = k % 3 === 2;
          const res = await call('POST', `/runs/${run}/messages`, WRITER, {
            type: decline ? 'WriterDeclineProposal' : 'WriterAcceptProposal',
            message_id: msgId('w'),
            ts: new Date(at).toISOString(),
            run_id: run,
            proposal_id: p.id,
          });
          expect(res.body.type).toBe('WriterAck');
          if (!decline) accepted.push(p.text);
        }
        open = [];
      }
    }
    await trace.until(() => trace.wires.length === STEPS, 30_000);
    trace.close();
    expect(trace.wires.map((w) => w.payload.message)).toEqual(
      Array.from({ length: STEPS }, (_, i) => `step ${i + 1}`),
    );
    const doc = await documentOf(run);
    const findings = (doc.body.document as { sections: Record<string, { notes: string[] }> })
      .sections.findings;
    expect(findings?.notes).toEqual(accepted);
    const history = await revisionsOf(run);
    expect(history.latest_revision).toBe(accepted.length);
    expect(history.revisions.map((r) => r.revision)).toEqual(
      Array.from({ length: accepted.length + 1 }, (_, i) => i),
    );
  }, 120_000);

  it('20 workers proposing while the writer merges: no lost ack, no revision skipped or repeated', async () => {
    const workers = Array.from({ length: 20 }, (_, i) => `agent:w${i}`);
    const run = await createRun({ workers });
    const PER = 5;
    const total = workers.length * PER;
    const merged: number[] = [];
    const seen = new Set<string>();
    let cursor = 0;
    let proposing = true;
    const writer = (async () => {
      while (merged.length < total) {
        const page = await call('GET', `/runs/${run}/mailbox?after_seq=${cursor}`, WRITER);
        const mail = page.body.wires as { stream_seq: number; payload: { message_id: string } }[];
        cursor = mail.at(-1)?.stream_seq ?? cursor;
        const fresh = mail.map((m) => m.payload.message_id).filter((id) => !seen.has(id));
        for (const id of fresh) seen.add(id);
        const acks = await Promise.all(
          fresh.map((id) =>
            call('POST', `/runs/${run}/messages`, WRITER, {
              type: 'WriterAcceptProposal',
              message_id: msgId('acc'),
              run_id: run,
              proposal_id: id,
            }),
          ),
        );
        for (const a of acks) {
          expect(a.body).toMatchObject({ type: 'WriterAck', outcome: 'merged' });
          merged.push(Number(a.body.revision));
        }
        if (fresh.length === 0 && !proposing && merged.length < total)
          await new Promise((r) => setTimeout(r, 50));
        if (fresh.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const answers = await Promise.all(
      workers.flatMap((w) =>
        Array.from({ length: PER }, (_, k) =>
          call('POST', `/runs/${run}/messages`, w, {
            type: 'WriterAppendNote',
            message_id: msgId(`${w.slice(6)}-${k}`),
            run_id: run,
            section: 'findings',
            markdown: `${w} finding ${k}`,
            proposal: true,
            source_worker_id: w,
          }),
        ),
      ),
    );
    proposing = false;
    await writer;
    expect(
      answers.every(
        (a) => a.status === 201 && a.body.type === 'WriterAck' && a.body.outcome === 'proposal',
      ),
    ).toBe(true);
    expect(new Set(answers.map((a) => a.body.message_id)).size).toBe(total);
    expect([...merged].sort((a, b) => a - b)).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );
    const history = await revisionsOf(run);
    expect(history.revisions.map((r) => r.revision)).toEqual(
      Array.from({ length: total + 1 }, (_, i) => i),
    );
    const doc = await documentOf(run);
    const notes = (doc.body.document as { sections: Record<string, { notes: string[] }> }).sections
      .findings?.notes;
    expect(new Set(notes).size).toBe(total);
    expect((doc.body.proposals as { status: string }[]).every((p) => p.status === 'merged')).toBe(
      true,
    );
  }, 120_000);
});
