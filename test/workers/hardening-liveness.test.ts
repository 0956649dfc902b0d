import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, authHeaders } from './helpers/auth';
import { send, uid, wiresOf } from './helpers/coordination';

// Issue 26, defects 4 and 6: an agent's liveness is dated by the server's
// clock, and a read model tells "not projected yet" apart from "no such agent".

const reader = async () => authHeaders('human:ops', ALL_SCOPES);

async function agentRead(agent: string, query = '') {
  const res = await SELF.fetch(`https://ws.test/v1/agents/${agent}${query}`, {
    headers: await reader(),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe("an agent's liveness", () => {
  it('refuses an agent Wire dated far from the server clock, naming ts, and stores nothing', async () => {
    const agent = uid('clock');
    const own = `agent:${agent}`;
    expect((await send(own, 'agent.started', own, { role: 'developer' })).status).toBe(201);
    for (const ts of ['9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z']) {
      for (const type of ['agent.heartbeat', 'agent.started', 'agent.capacity.updated']) {
        const sent = await send(own, type, own, { available_units: 1, max_units: 1 }, { ts });
        expect(sent.status, `${type} at ${ts}`).toBe(422);
        expect(String(sent.body.detail)).toMatch(/ts .* from the server clock/);
        expect(sent.body.errors).toEqual([
          { path: 'ts', message: 'too far from the server clock' },
        ]);
      }
    }
    expect((await wiresOf(own)).map((w) => w.type)).toEqual(['agent.started']);
    // A Wire near the clock is taken, and the agent reads as live.
    const beat = await send(own, 'agent.heartbeat', own, {});
    expect(beat.status).toBe(201);
    const read = await agentRead(agent, `?wait_for=${beat.body.wire_id}&wait_ms=5000`);
    expect(read.res.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'running', stale: false });
    // Another sender's Wire on the agent's stream, whatever its date, says
    // nothing about the agent's liveness: taken, and last_seen_at unchanged.
    const seenAt = read.body.last_seen_at;
    const other = await send(
      own,
      'review.concern',
      'agent:quinn-07',
      { concern: 'x' },
      {
        ts: '2020-01-01T00:00:00Z',
      },
    );
    expect(other.status).toBe(201);
    const after = await agentRead(agent, `?wait_for=${other.body.wire_id}&wait_ms=5000`);
    expect(after.body.last_seen_at).toBe(seenAt);
  });

  it('answers an agent its read model lacks with a 404 that says its Wires are not projected yet', async () => {
    const agent = uid('lag');
    const own = `agent:${agent}`;
    const started = performance.now();
    for (const type of ['agent.started', 'agent.heartbeat', 'agent.heartbeat']) {
      expect((await send(own, type, own, { role: 'developer' })).status).toBe(201);
    }
    // How long the model took to catch up is logged, not asserted.
    let read = await agentRead(agent);
    while (read.res.status !== 200) {
      await new Promise((r) => setTimeout(r, 25));
      read = await agentRead(agent);
    }
    console.log(
      `agent readable ${Math.round(performance.now() - started)} ms after its first Wire`,
    );
    expect(read.body).toMatchObject({ status: 'running', stale: false });
    // A model behind its stream (here: its row taken away) says so, unlike
    // an agent nobody has heard of, and unlike a stream the token may not see.
    await env.DB.prepare('DELETE FROM agent_runtime_state WHERE agent_id = ?').bind(agent).run();
    const behind = await agentRead(agent);
    expect(behind.res.status).toBe(404);
    expect(behind.body).toMatchObject({ projected: false, stream_last_seq: 3 });
    expect(String(behind.body.detail)).toMatch(/3 Wire\(s\) not projected yet/);
    expect(behind.res.headers.get('Retry-After')).toBe('1');
    const nobody = uid('ghost');
    const ghost = await agentRead(nobody);
    expect(ghost.res.status).toBe(404);
    expect(ghost.body.projected).toBeUndefined();
    expect(ghost.body.detail).toBe(`agent "${nobody}" has no projected agent stream`);
    const outsider = await SELF.fetch(`https://ws.test/v1/agents/${agent}`, {
      headers: await authHeaders('human:other', ['read'], { streams: ['project:'] }),
    });
    expect(outsider.status).toBe(404);
    expect(((await outsider.json()) as Record<string, unknown>).projected).toBeUndefined();
  });
});
