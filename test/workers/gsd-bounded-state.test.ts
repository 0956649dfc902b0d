import { SELF } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { MAX_STATE_BYTES } from '../../src/kernel/kind-runner';
import { uid } from './helpers/coordination';
import { as, emit, type Json, projectState, SEED_EVENTS } from './helpers/gsd';

/**
 * A project's decision log and alerts grow with every `decision:made` and
 * `task:failed`; the project's decision state (one row of at most ~2 MB)
 * keeps only where each event is, and the log is served from the events'
 * Wires, so a long-lived project never fills it.
 */
it('takes a decision log far larger than the state a stream keeps, and serves every event', async () => {
  const project = uid('long-decisions');
  const count = 130;
  const notes = (i: number) => `${i}:`.padEnd(15_000, String.fromCharCode(97 + (i % 26)));
  expect(count * notes(0).length).toBeGreaterThan(MAX_STATE_BYTES);
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: 10 }, (_, j) => ({
      ...SEED_EVENTS.decisionMade,
      id: `dec-${i + j}`,
      decision: `decision ${i + j}`,
      notes: notes(i + j),
    }));
    const answer = await emit(project, batch);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
  }
  const failed = await emit(project, { ...SEED_EVENTS.taskFailed, error: 'still fits' });
  expect(failed.status).toBe(201);

  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/decisions`, {
    headers: await as('agent:viewer'),
  });
  expect(res.status).toBe(200);
  const log = (await res.json()) as { decisions: Json[]; lastEventId: number };
  expect(log.decisions).toHaveLength(count);
  log.decisions.forEach((d, i) => {
    expect(d).toMatchObject({
      type: 'decision:made',
      id: `dec-${i}`,
      decision: `decision ${i}`,
      rationale: SEED_EVENTS.decisionMade.rationale,
      madeBy: SEED_EVENTS.decisionMade.madeBy,
      eventId: i + 1,
    });
    expect(d.notes, `dec-${i}`).toBe(notes(i));
  });
  const state = await projectState(project);
  expect(state.decisions).toEqual(log.decisions);
  expect(state.alerts).toMatchObject([
    { type: 'task:failed', error: 'still fits', agent: 'agent:gsd-executor', eventId: count + 1 },
  ]);
}, 240_000);
