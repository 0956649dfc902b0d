import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { MCP_URL, post } from './helpers/mcp';

/** What the MCP client SDKs never send: the transport's edges, spoken raw. */

/** A JSON-RPC answer, whether sent as JSON or as one SSE event. */
async function rpc(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return JSON.parse(data) as Record<string, unknown>;
}

const SEED_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { clientInfo: { name: 'cursor' } },
};

async function open(sub: string) {
  const auth = await authHeaders(sub);
  const res = await post(SEED_INITIALIZE, auth);
  const session = res.headers.get('Mcp-Session-Id') ?? '';
  return { auth, session, res };
}

describe('the /mcp endpoint', () => {
  it('answers 401 with WWW-Authenticate without a token or with a bad one', async () => {
    const tries: Record<string, string>[] = [{}, { Authorization: 'Bearer not-a-token' }];
    for (const headers of tries) {
      const res = await post(SEED_INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer /);
      expect(res.headers.get('Content-Type')).toContain('application/problem+json');
    }
  });

  it('refuses a rebinding Host or a foreign Origin before anything else', async () => {
    const auth = await authHeaders('agent:quinn');
    const evilHost = await SELF.fetch('http://evil.example.com/mcp', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', Host: 'evil.example.com' },
      body: JSON.stringify(SEED_INITIALIZE),
    });
    expect(evilHost.status).toBe(403);
    expect(await evilHost.json()).toMatchObject({
      error: { message: 'Invalid Host: evil.example.com' },
    });
    const evilOrigin = await post(SEED_INITIALIZE, { ...auth, Origin: 'http://evil.example.com' });
    expect(evilOrigin.status).toBe(403);
    expect(await evilOrigin.json()).toMatchObject({
      error: { message: 'Invalid Origin: evil.example.com' },
    });
    const local = await post(SEED_INITIALIZE, { ...auth, Origin: 'http://localhost:8787' });
    expect(local.status).toBe(200);
  });

  it("takes the seed's bare handshake and answers 2024-11-05 with serverInfo 1.0.0", async () => {
    const { res, session } = await open('agent:quinn');
    expect(res.status).toBe(200);
    expect(session).not.toBe('');
    expect(await rpc(res)).toMatchObject({
      id: 1,
      result: {
        protocolVersion: '2024-11-05',
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'wirestream', version: '1.0.0' },
      },
    });
  });

  it('keeps the client declared at initialize for the session, and only for its subject', async () => {
    const sub = `agent:${uid('s')}`;
    const { auth, session } = await open(sub);
    const headers = { ...auth, 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2024-11-05' };
    expect(
      (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status,
    ).toBe(202);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_haids' } };
    const listed = await rpc(await post(list, headers));
    const result = listed.result as { structuredContent: { haid: string } };
    expect(result.structuredContent.haid).toBe(`${sub}/cursor`);

    // Another token presenting the session id finds no session.
    const stranger = await post(list, {
      ...(await authHeaders('agent:mallory')),
      'Mcp-Session-Id': session,
    });
    expect(stranger.status).toBe(404);
  });

  it('asks for the session id after initialize, and forgets an ended session', async () => {
    const { auth, session } = await open(`agent:${uid('e')}`);
    const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
    const without = await post(ping, auth);
    expect(without.status).toBe(400);
    expect(await without.json()).toMatchObject({
      error: { message: expect.stringContaining('Mcp-Session-Id') },
    });

    const headers = { ...auth, 'Mcp-Session-Id': session };
    expect(await rpc(await post(ping, headers))).toMatchObject({ id: 3, result: {} });
    const ended = await SELF.fetch(MCP_URL, { method: 'DELETE', headers });
    expect(ended.status).toBe(204);
    expect((await post(ping, headers)).status).toBe(404);
    expect((await post(ping, { ...auth, 'Mcp-Session-Id': 'no-such-session' })).status).toBe(404);
  });

  it('opens no event stream on GET', async () => {
    const res = await SELF.fetch(MCP_URL, {
      headers: { ...(await authHeaders('agent:quinn')), Accept: 'text/event-stream' },
    });
    expect(res.status).toBe(405);
  });

  it('serves the HAID registry over REST', async () => {
    const sub = `agent:${uid('r')}`;
    const { auth, session } = await open(sub);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_haids' } };
    await post(call, { ...auth, 'Mcp-Session-Id': session });
    const res = await SELF.fetch('http://localhost/v1/haids', { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { haids: { haid: string; root: string; role: string }[] };
    expect(body.haids.find((h) => h.root === sub)).toMatchObject({
      haid: `${sub}/cursor`,
      role: 'cursor',
      status: 'active',
    });
  });
});
