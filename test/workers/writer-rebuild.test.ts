import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { snapshots } from '../../src/modules/writer/history';
import type { Wire } from '../../src/protocol';
import { runRebuild, untilQuiet } from './helpers/projection-live';
import {
  createRun,
  documentOf,
  HUMAN,
  message,
  note,
  patch,
  revisionsOf,
  WORKER,
  WRITER,
} from './helpers/writer';

/** The D1 read model and every revision come back from HCS alone. */

async function runRow(run: string) {
  return env.DB.prepare('SELECT * FROM writer_runs WHERE run_id = ?')
    .bind(run)
    .first<Record<string, unknown>>();
}

async function wiresFromD1(run: string): Promise<Wire[]> {
  const rows = await env.DB.prepare(
    'SELECT * FROM wire_events WHERE stream_id = ? ORDER BY stream_seq',
  )
    .bind(`run:${run}`)
    .all<Record<string, unknown>>();
  return rows.results.map((r) => ({
    wire: '1.1',
    wire_id: String(r.wire_id),
    stream_id: String(r.stream_id),
    stream_seq: Number(r.stream_seq),
    correlation_id: (r.correlation_id as string | null) ?? null,
    causation_id: (r.causation_id as string | null) ?? null,
    type: String(r.type),
    sender: String(r.sender),
    ts: String(r.ts),
    payload: JSON.parse(String(r.payload)) as Wire['payload'],
  }));
}

describe('rebuilding run documents from HCS', () => {
  it('reproduces every revision and every proposal', async () => {
    const run = await createRun();
    await message(run, WRITER, patch('summary', 'canon 1', false));
    const p1 = await message(run, WORKER, patch('findings', 'proposed body', true));
    const p2 = await message(run, HUMAN, note('summary', 'a comment', true));
    const p3 = await message(run, WORKER, note('findings', 'left open', true));
    await message(run, WORKER, patch('findings', 'refused', false));
    await message(run, WRITER, { type: 'WriterAcceptProposal', proposal_id: p1.body.message_id });
    await message(run, WRITER, {
      type: 'WriterDeclineProposal',
      proposal_id: p2.body.message_id,
      reason: 'no',
    });
    await message(run, WRITER, {
      type: 'WriterMarkSectionState',
      section: 'findings',
      state: 'review',
    });
    const latest = (await revisionsOf(run)).latest_revision;
    expect(latest).toBe(3);
    const live: unknown[] = [];
    for (let r = 0; r <= latest; r++) live.push((await documentOf(run, r)).body);
    await untilQuiet();
    const before = await runRow(run);
    expect(before).toMatchObject({ revision: 3, open_proposals: 1, rejects: 1, writer: WRITER });

    const lines = await runRebuild();
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await runRow(run)).toEqual(before);

    // wire_events now holds what the HCS mirror gave back: fold it into every revision.
    const wires = await wiresFromD1(run);
    const wanted = new Set(Array.from({ length: latest + 1 }, (_, i) => i));
    const { at, latest: state } = snapshots(wires, wanted);
    for (let r = 0; r <= latest; r++) {
      const served = live[r] as { document: unknown; proposals: unknown[] };
      expect(at.get(r)?.doc).toEqual(served.document);
      expect(
        Object.values(at.get(r)?.proposals ?? {}).map((p) => [p.proposal_id, p.status]),
      ).toEqual(
        served.proposals.map((p) => [
          (p as { proposal_id: string }).proposal_id,
          (p as { status: string }).status,
        ]),
      );
    }
    expect(state.proposals[String(p3.body.message_id)]?.status).toBe('open');
    expect(JSON.parse(String(before?.proposals))).toEqual(
      JSON.parse(JSON.stringify(state.proposals)),
    );
  }, 120_000);
});
