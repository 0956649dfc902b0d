import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentKey,
  ProjectClient,
  signatureOffer,
  signWire,
  WirestreamClient,
} from '../../src/client';
import { authHeaders } from './helpers/auth';
import { offer as offerTask, uid } from './helpers/coordination';
import { call, connect, type Era } from './helpers/mcp';
import { agentWire, newKey, postAs, registeredKey, signedPost } from './helpers/signing';
import { readAll, uniqueStream } from './helpers/wires';

/**
 * Issue 31's last gap, closed: Wires the server builds (a GSD event, a
 * workspace write — every endpoint that is not `POST /v1/streams/{id}/wires`)
 * from an agent with registered keys. The refusal shows the Wire as built
 * (`unsigned`); the client signs it and offers `{wire_id, ts, sig}` in
 * `Wirestream-Signatures` on the same request, and the server stores its own
 * Wire with the offered signature, wire_id and ts, only if the signature
 * verifies over it. Against the real stack: the API, the agent's StreamObject
 * holding its keys, the kernel's guard, the GSD and workspace modules.
 */
const agent = uniqueStream('agent').replace('agent:t', 'agent:sb');
const project = `sb-${Date.now().toString(36)}`;
const gsdStream = `gsd:${project}`;
let key: AgentKey;

type Json = Record<string, unknown>;
type Offer = { wire_id: string; ts: string; sig: Json };

const event = (n: number) => ({
  type: 'task:started',
  plan: '01-01',
  task: n,
  taskName: `step ${n}`,
  timestamp: '2024-01-15T10:30:00Z',
});

async function emit(body: unknown, offers?: Offer[]) {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
    method: 'POST',
    headers: {
      ...(await authHeaders(agent, ['append', 'read'])),
      'Content-Type': 'application/json',
      ...(offers ? { 'Wirestream-Signatures': JSON.stringify(offers) } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, res };
}

/** What a client does with a refusal's `unsigned`: sign it, offer wire_id, ts and sig. */
async function offerFor(unsigned: Json, by: AgentKey = key): Promise<Offer> {
  const signed = await signWire(unsigned as Parameters<typeof signWire>[0], by);
  return { wire_id: String(unsigned.wire_id), ts: String(unsigned.ts), sig: signed.sig };
}

/** A stream's Wires as served, each with every member. */
async function wiresOf(streamId: string) {
  return (await readAll(streamId)) as unknown as Json[];
}

async function stored() {
  return (await wiresOf(gsdStream)).filter((w) => w.sender === agent);
}

describe('a keyed agent on endpoints whose server builds the Wire', () => {
  beforeAll(async () => {
    key = await registeredKey(agent);
  });

  it('is refused with the Wire as the server built it, and nothing is stored', async () => {
    const refused = await emit(event(1));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      type: '/problems/signature-required',
      accepted_kids: [key.kid],
      unsigned: {
        wire: '1.1',
        stream_id: gsdStream,
        sender: agent,
        type: 'gsd.task.started',
        correlation_id: null,
        causation_id: null,
      },
    });
    expect(refused.body.detail).toContain('Wirestream-Signatures');
    expect(await stored()).toEqual([]);
  });

  it('stores its own Wire with the offered signature, wire_id and ts; the same request again is a replay', async () => {
    const refused = await emit(event(2));
    const offer = await offerFor(refused.body.unsigned as Json);
    // The server mints a new wire_id and ts for the repeated request: the offer's replace them.
    const accepted = await emit(event(2), [offer]);
    expect(accepted.status).toBe(201);
    const [wire] = await stored();
    expect(wire).toMatchObject({ wire_id: offer.wire_id, ts: offer.ts, sig: offer.sig });
    expect((wire?.payload as Json | undefined)?.taskName).toBe('step 2');
    const again = await emit(event(2), [offer]);
    expect(again.status).toBe(200);
    expect(again.res.headers.get('Idempotent-Replay')).toBe('true');
    expect(await stored()).toHaveLength(1);
  });

  it('refuses an offer over other content, by another key, or for another stream, storing nothing', async () => {
    const refused = await emit(event(3));
    const unsigned = refused.body.unsigned as Json;
    const cases: [string, Offer, RegExp][] = [
      [
        'other content',
        await offerFor({ ...unsigned, payload: { ...(unsigned.payload as Json), task: 4 } }),
        /offer 0: sig\.value: not a valid Ed25519 signature/,
      ],
      [
        'another key',
        await offerFor(unsigned, await newKey()),
        /offer 0: sig\.kid: ".*" is not a key/,
      ],
      [
        'another stream',
        await offerFor({ ...unsigned, stream_id: `${gsdStream}-other` }),
        /offer 0: sig\.value: not a valid Ed25519 signature/,
      ],
    ];
    for (const [what, offer, why] of cases) {
      const res = await emit(event(3), [offer]);
      expect(res.status, what).toBe(403);
      expect(res.body).toMatchObject({
        type: '/problems/signature-invalid',
        reason: 'no-offer-matches',
        accepted_kids: [key.kid],
      });
      expect(res.body.detail, what).toMatch(why);
      // A fresh Wire to sign, so the client can try again.
      expect((res.body.unsigned as Json).type).toBe('gsd.task.started');
    }
    expect(await stored()).toHaveLength(1);
  });

  it('refuses an offer that picks a wire_id the coordinator reserves for derived Wires', async () => {
    const refused = await emit(event(5));
    const unsigned = { ...(refused.body.unsigned as Json), wire_id: 'gsdk:forged-1' };
    const res = await emit(event(5), [await offerFor(unsigned)]);
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/offer 0: wire_id "gsdk:forged-1" starts with "gsdk:"/);
    expect(await stored()).toHaveLength(1);
  });

  it('asks for a whole batch at once, and stores it signed when every event has its offer', async () => {
    const batch = [event(6), event(7), event(8)];
    const refused = await emit(batch);
    expect(refused.status).toBe(403);
    expect(refused.body.index).toBe(0);
    const unsigned = refused.body.unsigned as Json[];
    expect(unsigned.map((w) => (w.payload as Json).task)).toEqual([6, 7, 8]);
    // Offered in another order: each offer signs the event it was made for.
    const offers = await Promise.all(unsigned.map((w) => offerFor(w)));
    const accepted = await emit(batch, [offers[2], offers[0], offers[1]] as Offer[]);
    expect(accepted.status).toBe(201);
    const wires = (await stored()).slice(-3);
    expect(wires.map((w) => (w.payload as Json).task)).toEqual([6, 7, 8]);
    expect(wires.map((w) => w.wire_id)).toEqual(offers.map((o) => o.wire_id));
  });

  it('names the offer and member at fault in a malformed header (400), storing nothing', async () => {
    const before = (await stored()).length;
    const bad = await emit(event(9), [{ wire_id: 'w-1', ts: 'yesterday', sig: {} }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: '/problems/invalid-header' });
    expect(bad.body.detail).toMatch(/^Wirestream-Signatures\[0\]\.ts: ts must be an ISO 8601/);
    const notJson = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
      method: 'POST',
      headers: {
        ...(await authHeaders(agent, ['append', 'read'])),
        'Content-Type': 'application/json',
        'Wirestream-Signatures': 'kid=abc',
      },
      body: JSON.stringify(event(9)),
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as Json).detail).toMatch(
      /must be a JSON array of \{wire_id, ts, sig\}/,
    );
    expect(await stored()).toHaveLength(before);
  });

  it('the SDK signs what the server builds on its own: a GSD emit, a workspace write, a GSD config', async () => {
    const token = (await authHeaders(agent, ['append', 'read'])).Authorization?.slice(7);
    const client = new WirestreamClient({
      baseUrl: 'https://ws.test',
      token,
      sender: agent,
      signingKey: key,
      fetch: (input, init) => SELF.fetch(input, init),
    });
    const emitted = await new ProjectClient(client, project).emit([event(10), event(11)]);
    expect(emitted.events).toHaveLength(2);
    const gsd = (await stored()).slice(-2);
    expect(gsd.map((w) => (w.sig as Json | undefined)?.kid)).toEqual([key.kid, key.kid]);

    // A workspace write (seed 001), through the kernel's one append path.
    const ws = `sb${Date.now().toString(36)}`;
    const put = await client.http.request<Json>('PUT', `/v1/workspaces/${ws}/blackboard/dev_port`, {
      body: { value: '5173' },
    });
    expect(put.status).toBeLessThan(300);
    const written = (await wiresOf(`workspace:${ws}`)).filter((w) => w.sender === agent);
    expect(written).toHaveLength(1);
    expect((written[0]?.sig as Json | undefined)?.kid).toBe(key.kid);

    // A coordinator's config (GSD): the server stamps the time into the Wire's ts, which the offer's replaces.
    const coordinatorToken = (
      await authHeaders(agent, ['append', 'read'], { roles: ['coordinator'] })
    ).Authorization?.slice(7);
    const coordinator = new WirestreamClient({
      baseUrl: 'https://ws.test',
      token: coordinatorToken,
      sender: agent,
      signingKey: key,
      fetch: (input, init) => SELF.fetch(input, init),
    });
    const config = await coordinator.http.request<Json>('PUT', `/v1/projects/${project}/config`, {
      body: { retentionPolicy: '7d' },
    });
    expect(config.status).toBe(200);
    const configWire = (await stored()).at(-1);
    expect(configWire?.type).toBe('gsd.config.updated');
    expect((configWire?.sig as Json | undefined)?.kid).toBe(key.kid);

    // With a key the agent never registered: one signed try, then the refusal says why.
    let sent = 0;
    const stranger = new WirestreamClient({
      baseUrl: 'https://ws.test',
      token,
      sender: agent,
      signingKey: await newKey(),
      fetch: (input, init) => {
        sent++;
        return SELF.fetch(input, init);
      },
    });
    await expect(
      stranger.http.request('PUT', `/v1/workspaces/${ws}/blackboard/dev_port`, {
        body: { value: '5175' },
      }),
    ).rejects.toMatchObject({ status: 403, code: 'signature-invalid' });
    expect(sent).toBe(2);

    // Without the key, the same write is refused, naming what to do.
    const keyless = new WirestreamClient({
      baseUrl: 'https://ws.test',
      token,
      sender: agent,
      fetch: (input, init) => SELF.fetch(input, init),
    });
    await expect(
      keyless.http.request('PUT', `/v1/workspaces/${ws}/blackboard/dev_port`, {
        body: { value: '5174' },
      }),
    ).rejects.toMatchObject({ status: 403, code: 'signature-required' });
  });
});

describe('a key registration', () => {
  it('is answered only once no isolate can still take its agent for keyless (KEYLESS_CACHE_MS)', async () => {
    const window = Number((env as { KEYLESS_CACHE_MS?: string }).KEYLESS_CACHE_MS);
    expect(window).toBeGreaterThan(0);
    const fresh = uniqueStream('agent').replace('agent:t', 'agent:reg');
    // Keyless: accepted unsigned, and remembered as keyless in this isolate for `window` ms.
    expect((await signedPost(fresh, `project:${project}`, null)).status).toBe(201);
    const first = await newKey();
    const registration = await signWire(
      agentWire(fresh, fresh, {
        type: 'agent.key.registered',
        payload: { kid: first.kid, alg: 'Ed25519', public_key: first.public_key },
      }),
      first,
    );
    const started = performance.now();
    const res = await postAs(fresh, fresh, registration);
    const took = performance.now() - started;
    expect(res.status).toBe(201);
    // Any isolate that looked the agent up before the key was stored has forgotten it by now.
    expect(took).toBeGreaterThanOrEqual(window);
    expect((await postAs(fresh, fresh, registration)).status).toBe(200); // a replay
    expect((await signedPost(fresh, `project:${project}`, null)).status).toBe(403);
    expect((await signedPost(fresh, `project:${project}`, first)).status).toBe(201);
  });
});

describe.each<Era>(['session', 'sessionless'])('over MCP, the official client (%s era)', (era) => {
  it('signs a tool call by calling it again with _meta["io.wirestream/signatures"]', async () => {
    const token = (await authHeaders(agent, ['append', 'read', 'claim'])).Authorization?.slice(7);
    const c = await connect(era, { token: token ?? '', name: 'cursor' });
    try {
      const stream = `project:${project}-mcp-${era}`;
      const args = { stream_id: stream, type: 'review.concern', payload: { concern: era } };
      const refused = await call(c, 'append_wire', args);
      expect(refused.isError).toBe(true);
      const problem = refused.text.problem as Json;
      expect(problem).toMatchObject({ status: 403, type: '/problems/signature-required' });
      expect(String(refused.text.error)).toContain('_meta["io.wirestream/signatures"]');
      expect(await wiresOf(stream)).toEqual([]);
      const offer = await signatureOffer(problem.unsigned as Json, key);
      const signed = await c.client.callTool({
        name: 'append_wire',
        arguments: args,
        _meta: { 'io.wirestream/signatures': [offer] },
      });
      expect(signed.isError).toBeFalsy();
      const wires = await wiresOf(stream);
      expect(wires.map((w) => [w.wire_id, (w.sig as Json | undefined)?.kid])).toEqual([
        [offer.wire_id, key.kid],
      ]);
    } finally {
      await c.close();
    }
  });

  it('signs a claim_task call by calling it again: the lease it builds again is the one signed', async () => {
    const task = uid('T');
    const role = uid('role');
    expect((await offerTask(task, role)).status).toBe(201);
    const token = (await authHeaders(agent, ['append', 'read', 'claim'])).Authorization?.slice(7);
    const c = await connect(era, { token: token ?? '', name: 'cursor' });
    try {
      const args = { task_id: task, role, lease_seconds: 300 };
      const refused = await call(c, 'claim_task', args);
      const problem = refused.text.problem as Json;
      expect(problem).toMatchObject({ status: 403, type: '/problems/signature-required' });
      const unsigned = problem.unsigned as { ts: string; payload: Json };
      const lease = new Date(Date.parse(unsigned.ts) + 300_000).toISOString();
      expect(unsigned.payload.lease_expires_at).toBe(lease);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the clock moves on meanwhile
      const offer = await signatureOffer(unsigned, key);
      const signed = await c.client.callTool({
        name: 'claim_task',
        arguments: args,
        _meta: { 'io.wirestream/signatures': [offer] },
      });
      expect(signed.isError).toBeFalsy();
      expect(signed.structuredContent).toMatchObject({ wire_id: offer.wire_id, stream_seq: 2 });
      const claimed = (await wiresOf(`task:${task}:attempt:1`))[1] ?? {};
      expect(claimed).toMatchObject({ ts: unsigned.ts, sig: { kid: key.kid } });
      expect(claimed.payload).toMatchObject({ lease_expires_at: lease });
    } finally {
      await c.close();
    }
  });
});
