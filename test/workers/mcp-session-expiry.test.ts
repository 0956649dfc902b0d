import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SESSION_IDLE_SECONDS,
  sessionIdleMs,
  sessionObject,
} from '../../src/api/mcp/identity-object';
import { authHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { call, connect, post } from './helpers/mcp';

/**
 * Sessions of the 2025-11-25 era expire after an idle time
 * (`MCP_SESSION_IDLE_SECONDS`); afterwards their id answers 404, as the
 * transport spec says, and the client initializes again. The session object
 * takes the clock from its caller, so the test moves the clock instead of
 * waiting.
 */

const stubOf = (id: string) => env.MCP_IDENTITY.get(env.MCP_IDENTITY.idFromName(`session:${id}`));
const rows = (id: string) =>
  runInDurableObject(stubOf(id), (_o, state) =>
    state.storage.sql.exec('SELECT ended FROM session').toArray(),
  );

describe('MCP session expiry', () => {
  it('defaults to 30 minutes idle', () => {
    expect(DEFAULT_SESSION_IDLE_SECONDS).toBe(1800);
    expect(sessionIdleMs({})).toBe(1_800_000);
    expect(sessionIdleMs({ MCP_SESSION_IDLE_SECONDS: '60' })).toBe(60_000);
  });

  it('keeps the initialize identity while used within the idle time, then answers 404 and the client initializes again', async () => {
    const sub = `agent:${uid('x')}`;
    const c = await connect('session', { sub, name: 'cursor' });
    const id = c.transport.sessionId ?? '';
    expect(id).not.toBe('');
    const session = sessionObject(env, id);
    const idle = sessionIdleMs(env);
    const t0 = Date.now();
    // Each request restarts the idle count: used at t0 + idle/2, it lives until t0 + 1.5 idle.
    expect(await session.session(sub, t0 + idle / 2)).toMatchObject({ client: 'cursor' });
    expect(await session.session(sub, t0 + idle / 2 + idle)).toMatchObject({ client: 'cursor' });
    // Another subject presenting the id neither finds nor refreshes it.
    expect(await session.session('agent:mallory', t0 + 10 * idle)).toBeNull();
    // Still live: a tool call is attributed to the client declared at initialize.
    const live = await call(c, 'list_haids');
    expect(live.structuredContent.haid).toBe(`${sub}/cursor`);

    // Idle for longer than the idle time: expired.
    expect(await session.session(sub, t0 + 3 * idle)).toBeNull();
    const auth = await authHeaders(sub);
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    const gone = await post(ping, { ...auth, 'Mcp-Session-Id': id });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({
      error: { code: -32001, message: expect.stringContaining('initialize again') },
    });
    await expect(c.client.callTool({ name: 'list_haids', arguments: {} })).rejects.toThrow(
      /Session not found/,
    );
    await c.close().catch(() => {});

    // A new session: initialize again, the same identity.
    const again = await connect('session', { sub, name: 'cursor' });
    try {
      expect(again.transport.sessionId).not.toBe(id);
      const after = await call(again, 'list_haids');
      expect(after.structuredContent.haid).toBe(`${sub}/cursor`);
    } finally {
      await again.close();
    }
  });

  it("forgets an expired session's storage at its alarm, and keeps a live one", async () => {
    const sub = `agent:${uid('a')}`;
    const live = await connect('session', { sub, name: 'copilot' });
    const gone = await connect('session', { sub, name: 'cursor' });
    try {
      const liveId = live.transport.sessionId ?? '';
      const goneId = gone.transport.sessionId ?? '';
      await sessionObject(env, goneId).session(sub, Date.now() + 2 * sessionIdleMs(env));
      expect(await runDurableObjectAlarm(stubOf(goneId))).toBe(true);
      expect(await rows(goneId)).toEqual([]);
      expect(await runDurableObjectAlarm(stubOf(liveId))).toBe(true);
      expect(await rows(liveId)).toEqual([{ ended: 0 }]);
      const still = await call(live, 'list_haids');
      expect(still.structuredContent.haid).toBe(`${sub}/copilot`);
    } finally {
      await live.close();
      await gone.close().catch(() => {});
    }
  });
});
