import { describe, expect, it } from 'vitest';
import { api, type Json, SEED_TASK_RESULT, wsId } from './helpers/heimdall';

/**
 * A Heimdall Wire appended through the generic route
 * (`POST /v1/streams/{id}/wires`) meets the same rules as through the
 * workspace routes: the deciders hold them, not the routes.
 */

const ME = 'agent:generic';

function wire(stream: string, type: string, payload: Json): Json {
  return {
    wire: '1.1',
    wire_id: `wire_${wsId('g')}`,
    stream_id: stream,
    correlation_id: null,
    causation_id: null,
    type,
    sender: ME,
    ts: new Date().toISOString(),
    payload,
  };
}

const append = (stream: string, type: string, payload: Json) =>
  api('POST', `/v1/streams/${stream}/wires`, ME, wire(stream, type, payload));

describe('Heimdall Wires on the generic append route', () => {
  it('refuses a message.accepted whose message is not one of the six types, as POST …/messages does', async () => {
    const ws = wsId('gw');
    const stream = `workspace:${ws}`;
    const prose = await append(stream, 'message.accepted', {
      message: { type: 'task_result', msg_id: 'm9', plan: 'THE WHOLE PLAN, RESTATED.' },
      haid: ME,
    });
    expect(prose.status).toBe(422);
    expect(String(prose.body.type)).toMatch(/\/invalid-message$/);
    expect(String(prose.body.detail)).toContain('unknown field(s) plan');
    expect(String(prose.body.detail)).toContain('from');
    const valid = await append(stream, 'message.accepted', { message: SEED_TASK_RESULT, haid: ME });
    expect(valid.status).toBe(201);
    const wires = await api('GET', `/v1/streams/${stream}/wires`, ME);
    expect((wires.body.wires as Json[]).map((w) => (w.payload as Json).message)).toEqual([
      SEED_TASK_RESULT,
    ]);
  });

  it("refuses a surface.claim whose task_ref is not '<task>@<haid>', naming task_ref", async () => {
    const ws = wsId('gw');
    const stream = `surfaces:${ws}`;
    const claim = { haid: ME, surfaces: ['src/**'], task: 'T', mode: 'exclusive', ttl_minutes: 30 };
    for (const task_ref of ['T@agent:someone-else/cursor', 'U@agent:generic']) {
      const forged = await append(stream, 'surface.claim', { ...claim, task_ref });
      expect(forged.status, task_ref).toBe(422);
      expect((forged.body.errors as Json[])[0]).toMatchObject({ path: 'payload.task_ref' });
    }
    expect((await api('GET', `/v1/workspaces/${ws}/claims`, ME)).body.claims).toEqual([]);
    const own = await append(stream, 'surface.claim', { ...claim, task_ref: `T@${ME}` });
    expect(own.status).toBe(201);
  });
});
