import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { issueToken } from '../../src/api/auth/tokens';
import { expectProblem } from './helpers/attack';
import { authHeaders, tokenFor } from './helpers/auth';
import { Subscriber } from './helpers/subscriber';
import { post, uniqueStream, wire11 } from './helpers/wires';

const base = 'https://ws.test';

function upgrade(streamId: string, query = '', headers: Record<string, string> = {}) {
  return SELF.fetch(`${base}/v1/streams/${streamId}/ws?after_seq=0${query}`, {
    headers: { Upgrade: 'websocket', ...headers },
  });
}

/** An upgrade of a fresh stream with `?ticket=`, refused: the 401 unauthenticated problem. */
async function refusedTicket(ticket: string | undefined) {
  return expectProblem(await upgrade(uniqueStream(), `&ticket=${ticket}`), 401, 'unauthenticated');
}

/** An upgrade that opened a socket: accepted and closed at once. */
function expectOpened(res: Response) {
  expect(res.status).toBe(101);
  res.webSocket?.accept();
  res.webSocket?.close(1000, 'done');
}

async function ticket(headers: Record<string, string>): Promise<string> {
  const res = await SELF.fetch(`${base}/v1/tickets`, { method: 'POST', headers });
  expect(res.status).toBe(201);
  return ((await res.json()) as { ticket: string }).ticket;
}

describe('WebSocket upgrades', () => {
  it('refuses an upgrade without a credential with 401 and no socket', async () => {
    const res = await upgrade(uniqueStream());
    await expectProblem(res, 401, 'unauthenticated');
    expect(res.webSocket).toBeNull();
  });

  it('guards role feeds the same way', async () => {
    const res = await SELF.fetch(`${base}/v1/roles/developer/ws`, {
      headers: { Upgrade: 'websocket' },
    });
    await expectProblem(res, 401, 'unauthenticated');
  });

  it('refuses an upgrade with a bad bearer token or a bad subprotocol token', async () => {
    const s = uniqueStream();
    await expectProblem(
      await upgrade(s, '', { Authorization: 'Bearer nope.nope.nope' }),
      401,
      'unauthenticated',
    );
    const res = await upgrade(s, '', {
      'Sec-WebSocket-Protocol': 'wirestream, wirestream.bearer.nope',
    });
    await expectProblem(res, 401, 'unauthenticated');
  });

  it('opens with a short-lived ticket passed as ?ticket=', async () => {
    const t = await ticket(await authHeaders('agent:quinn-07', ['read']));
    const res = await upgrade(uniqueStream(), `&ticket=${t}`);
    expectOpened(res);
  });

  it('opens one socket per ticket: the same ticket again is 401, a fresh one opens', async () => {
    const headers = await authHeaders('agent:quinn-07', ['read']);
    const t = await ticket(headers);
    const first = await upgrade(uniqueStream(), `&ticket=${t}`);
    expect(first.status).toBe(101);
    first.webSocket?.accept();
    // Replayed from a log or a proxy, on the same stream or another one.
    for (const stream of [uniqueStream(), uniqueStream('project')]) {
      const again = await upgrade(stream, `&ticket=${t}`);
      const problem = await expectProblem(again, 401, 'unauthenticated');
      expect(problem.detail).toContain('used already');
      expect(again.webSocket).toBeNull();
    }
    const next = await upgrade(uniqueStream(), `&ticket=${await ticket(headers)}`);
    expect(next.status).toBe(101);
    next.webSocket?.accept();
    next.webSocket?.close(1000, 'done');
    first.webSocket?.close(1000, 'done');
  });

  it('takes a ticket in ?ticket= only, where it is spent: as bearer or subprotocol it is 401', async () => {
    const t = await ticket(await authHeaders('agent:quinn-07', ['read']));
    const ways: Record<string, string>[] = [
      { Authorization: `Bearer ${t}` },
      { 'Sec-WebSocket-Protocol': `wirestream, wirestream.bearer.${t}` },
    ];
    for (const headers of ways) {
      for (let i = 0; i < 2; i++) {
        const res = await upgrade(uniqueStream(), '', headers);
        const problem = await expectProblem(res, 401, 'unauthenticated');
        expect(problem.detail).toContain('?ticket=<ticket> only');
      }
    }
    // Unspent by those refusals.
    const res = await upgrade(uniqueStream(), `&ticket=${t}`);
    expectOpened(res);
  });

  it('does not spend a ticket on an upgrade refused for its stream', async () => {
    const limited = await authHeaders('agent:quinn-07', ['read'], { streams: ['agent:'] });
    const t = await ticket(limited);
    await expectProblem(await upgrade(uniqueStream('project'), `&ticket=${t}`), 403, 'forbidden');
    const res = await upgrade(uniqueStream('agent'), `&ticket=${t}`);
    expectOpened(res);
  });

  it('issues no ticket that outlives the token it came from', async () => {
    const token = await tokenFor({ sub: 'agent:quinn-07', scopes: ['read'], expiresIn: 20 });
    const res = await SELF.fetch(`${base}/v1/tickets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(201);
    const { expires_at } = (await res.json()) as { expires_at: string };
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(21_000);
  });

  it('refuses a long-lived token in the URL: ?ticket= takes tickets only', async () => {
    const token = (await authHeaders()).Authorization?.slice('Bearer '.length);
    const problem = await refusedTicket(token);
    expect(problem.detail).toContain('POST /v1/tickets');
  });

  it('refuses an expired ticket', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { token } = await issueToken(
      env.TOKEN_SECRET ?? '',
      { sub: 'agent:quinn-07', scopes: ['read'], purpose: 'ws', expiresInSeconds: 60 },
      now - 120,
    );
    const problem = await refusedTicket(token);
    expect(problem.detail).toContain('expired');
  });

  it('refuses a ticket anywhere but a WebSocket upgrade', async () => {
    const t = await ticket(await authHeaders());
    const s = uniqueStream();
    const res = await post(s, wire11(s), { Authorization: `Bearer ${t}` });
    await expectProblem(res, 401, 'unauthenticated');
  });

  it('accepts a token offered as subprotocol and selects "wirestream" in the 101', async () => {
    const token = (await authHeaders('agent:quinn-07', ['read'])).Authorization?.slice(7);
    const res = await upgrade(uniqueStream(), '', {
      'Sec-WebSocket-Protocol': `wirestream, wirestream.bearer.${token}`,
    });
    expect(res.headers.get('sec-websocket-protocol')).toBe('wirestream');
    expectOpened(res);
  });

  it('upgrades a browser request (Origin set) with the CORS and subprotocol headers intact', async () => {
    const token = (await authHeaders('agent:quinn-07', ['read'])).Authorization?.slice(7);
    const res = await upgrade(uniqueStream(), '', {
      Origin: 'http://localhost:8787',
      'Sec-WebSocket-Protocol': `wirestream, wirestream.bearer.${token}`,
    });
    expect(res.headers.get('sec-websocket-protocol')).toBe('wirestream');
    expectOpened(res);
  });

  it('refuses a subscription outside the token prefixes with 403', async () => {
    const limited = await authHeaders('agent:quinn-07', ['read'], { streams: ['agent:'] });
    await expectProblem(await upgrade(uniqueStream('project'), '', limited), 403, 'forbidden');
    const t = await ticket(limited);
    await expectProblem(await upgrade(uniqueStream('project'), `&ticket=${t}`), 403, 'forbidden');
  });

  it('broadcasts nothing of a refused append to live subscribers', async () => {
    const s = uniqueStream();
    const sub = await Subscriber.open(s, 0);
    const forged = await post(
      s,
      wire11(s, { sender: 'agent:quinn-07' }),
      await authHeaders('agent:mallory'),
    );
    expect(forged.status).toBe(403);
    const good = wire11(s);
    expect((await post(s, good)).status).toBe(201);
    await sub.until(() => sub.seqs.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.seqs).toEqual([1]);
    const wires = sub.frames.flatMap((f) => (f as { wires?: { wire_id: string }[] }).wires ?? []);
    expect(wires.map((w) => w.wire_id)).toEqual([good.wire_id]);
    sub.close();
  });
});
