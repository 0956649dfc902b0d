import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { runRebuild, untilQuiet } from './helpers/projection-live';
import { rt, session } from './helpers/runtime';

/** The six tables of FR-9 (prefixed), plus the memory store behind memory_recall. */
const TABLES = [
  'runtime_channels',
  'runtime_tasks',
  'runtime_artifacts',
  'runtime_memory_bulletins',
  'runtime_token_usage',
  'runtime_memory',
];

async function dump() {
  const results = await env.DB.batch<Record<string, unknown>>([
    ...TABLES.map((t) => env.DB.prepare(`SELECT * FROM ${t} ORDER BY stream_id`)),
    // The events view, minus received_at (a rebuild takes the consensus time).
    env.DB.prepare(
      `SELECT message_id, message_type, stream_id, stream_seq, ts, trace_id, channel_id, branch_id, worker_id, sender, payload
         FROM runtime_events ORDER BY stream_id, stream_seq`,
    ),
  ]);
  return Object.fromEntries(
    [...TABLES, 'runtime_events'].map((t, i) => [t, results[i]?.results ?? []]),
  );
}

describe('Runtime v1 persistence', () => {
  it('rebuilding from HCS reproduces channels, tasks, events, artifacts, bulletins, token usage and memory', async () => {
    await session();
    await untilQuiet();
    const live = await dump();
    for (const table of [...TABLES, 'runtime_events'])
      expect(live[table]?.length).toBeGreaterThan(0);

    // Lose the runtime's tables, then replay HCS.
    await env.DB.batch(TABLES.map((t) => env.DB.prepare(`DELETE FROM ${t}`)));
    expect((await dump()).runtime_channels).toEqual([]);
    const lines = await runRebuild();
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await dump()).toEqual(live);
    // memory_recall works on the rebuilt store (its FTS index is refilled too).
    const memory = live.runtime_memory?.[0] as { branch_id: string; memory_id: string };
    const recalled = await rt('GET', `/branches/${memory.branch_id}/memory?q=ledger`);
    expect((recalled.body.memories as { memory_id: string }[]).map((m) => m.memory_id)).toEqual([
      memory.memory_id,
    ]);
  });
});
