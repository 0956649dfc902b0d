import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { filterOf } from '../../src/modules/gsd/routes/events';
import { readEvents } from '../../src/modules/gsd/routes/read-events';
import { streamStub } from '../../src/stream/stub';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { as, emit, SEED_EVENTS } from './helpers/gsd';

const HOUR = 3_600_000;

/** The events view as it will look at `now` (the clock injected, no sleeping). */
async function viewAt(project: string, now: number) {
  const found = await readEvents(streamStub(env, `gsd:${project}`), filterOf({}), 0, {
    limit: 1000,
    waitMs: 0,
    count: 1,
    now,
  });
  return { ids: found.events.map((e) => e.id), retentionPolicy: found.retentionPolicy };
}

async function anchoredLog(project: string): Promise<number[]> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/gsd:${project}/wires?after_seq=0`, {
    headers: await as('agent:viewer'),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { wires: { stream_seq: number }[] }).wires.map((w) => w.stream_seq);
}

describe('retention governs the events view only', () => {
  it('drops events older than 24h by default; the stream keeps them', async () => {
    const project = uid('ret24');
    await emit(project, [SEED_EVENTS.taskStarted, SEED_EVENTS.taskCompleted]);
    const now = Date.now();
    expect(await viewAt(project, now)).toEqual({ ids: [1, 2], retentionPolicy: '24h' });
    expect((await viewAt(project, now + 23 * HOUR)).ids).toEqual([1, 2]);
    expect((await viewAt(project, now + 25 * HOUR)).ids).toEqual([]);
    expect(await anchoredLog(project)).toEqual([1, 2]);
  });

  it("follows the project's own retentionPolicy", async () => {
    const project = uid('ret7d');
    await emit(project, SEED_EVENTS.taskStarted);
    const put = await SELF.fetch(`https://ws.test/v1/projects/${project}/config`, {
      method: 'PUT',
      headers: {
        ...(await coordinatorHeaders('coordinator:orch')),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ retentionPolicy: '7d' }),
    });
    expect(put.status).toBe(200);
    const now = Date.now();
    expect(await viewAt(project, now + 25 * HOUR)).toEqual({ ids: [1, 2], retentionPolicy: '7d' });
    expect((await viewAt(project, now + 8 * 24 * HOUR)).ids).toEqual([]);
    expect(await anchoredLog(project)).toEqual([1, 2]);
  });
});
