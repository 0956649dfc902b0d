import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { as, emit, type Json, SEED_EVENTS } from './helpers/gsd';
import { appendDecision, connect } from './helpers/mcp';

async function workspaceDecisions(ws: string): Promise<Json[]> {
  const res = await SELF.fetch(`https://ws.test/v1/workspaces/${ws}/decisions`, {
    headers: await as('agent:viewer'),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { decisions: Json[] }).decisions;
}

describe('decision:made feeds the workspace decision log (seed 001)', () => {
  it('shows in the log read over REST, before and beside what MCP append_decision adds', async () => {
    const project = uid('declog');
    const key = { 'Idempotency-Key': 'dec-001-once' };
    expect((await emit(project, SEED_EVENTS.decisionMade, undefined, key)).status).toBe(201);
    // A retried post is a replay: the log gets the decision once.
    expect((await emit(project, SEED_EVENTS.decisionMade, undefined, key)).status).toBe(200);

    // Delivered from the project's effect outbox before the 201.
    expect(await workspaceDecisions(project)).toEqual([
      {
        seq: 1,
        title: 'Use jose library for JWT',
        body: 'Use jose library for JWT\n\nRationale: Edge runtime compatibility',
        haid: 'agent:gsd-executor',
        at: SEED_EVENTS.decisionMade.timestamp,
      },
    ]);

    const mcp = await connect('session', { sub: 'agent:quinn', name: 'cursor' });
    try {
      const decided = await appendDecision(
        mcp,
        project,
        'Keep tokens short-lived',
        'Five minutes.',
      );
      // The same log: MCP's entry comes after the GSD one.
      expect(decided.structuredContent).toMatchObject({
        decision: { seq: 2, haid: 'agent:quinn/cursor', title: 'Keep tokens short-lived' },
      });
    } finally {
      await mcp.close();
    }
    expect((await workspaceDecisions(project)).map((d) => [d.seq, d.title])).toEqual([
      [1, 'Use jose library for JWT'],
      [2, 'Keep tokens short-lived'],
    ]);
    const doc = await SELF.fetch(
      `https://ws.test/v1/workspaces/${project}/documents/decisions.md`,
      { headers: await as('agent:viewer') },
    );
    expect(await doc.text()).toContain('Use jose library for JWT');
  });

  it('follows the project handlers: without decision-tracker, no entry', async () => {
    const project = uid('declog-off');
    const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/config`, {
      method: 'PUT',
      headers: {
        ...(await as('coordinator:orch', ['append', 'read'], ['coordinator'])),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ event_handlers: { 'decision:made': [] } }),
    });
    expect(res.status).toBe(200);
    expect((await emit(project, SEED_EVENTS.decisionMade)).status).toBe(201);
    expect((await emit(project, { ...SEED_EVENTS.taskStarted })).status).toBe(201);
    expect(await workspaceDecisions(project)).toEqual([]);
  });

  it("keeps the entry in the project's workspace, by the event's sender, with its decision text, whatever fields of those names the event carries", async () => {
    const project = uid('declog-fields');
    const elsewhere = uid('declog-victim');
    const posted = await emit(project, {
      ...SEED_EVENTS.decisionMade,
      workspace: elsewhere,
      haid: 'human:cto',
      title: 'Something else',
      body: 'Other text',
    });
    expect(posted.status).toBe(201);
    expect(await workspaceDecisions(elsewhere)).toEqual([]);
    expect(await workspaceDecisions(project)).toMatchObject([
      {
        title: 'Use jose library for JWT',
        body: 'Use jose library for JWT\n\nRationale: Edge runtime compatibility',
        haid: 'agent:gsd-executor',
      },
    ]);
  });

  it('logs an accepted decision whose extra fields the log would refuse in its own places', async () => {
    const project = uid('declog-extra');
    expect(
      (await emit(project, { ...SEED_EVENTS.decisionMade, title: 7, body: null })).status,
    ).toBe(201);
    expect(await workspaceDecisions(project)).toMatchObject([
      { title: 'Use jose library for JWT' },
    ]);
  });
});
