import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentKey,
  type AnchoredEnvelope,
  signWire,
  verifyAnchoredWire,
} from '../../src/client';
import { untilAnchored } from './helpers/anchoring';
import {
  ADMIN,
  agentWire,
  fromMirror,
  newKey,
  postAs,
  refusal,
  signedPost,
} from './helpers/signing';
import { guardCosts } from './helpers/signing-cost';
import { readAll, uniqueStream } from './helpers/wires';

/**
 * Issue 31, agent-signed Wires: the acceptance matrix against the real stack
 * (the API, the agent's StreamObject holding its keys, the kernel's signature
 * guard, anchoring to the stand-in network and its mirror). One agent goes
 * through its keys' whole life in order; each refusal also checks that
 * nothing was stored.
 */
const agent = uniqueStream('agent').replace('agent:t', 'agent:sig');
const project = uniqueStream('project');
const other = uniqueStream('project');
let keyA: AgentKey;
let keyB: AgentKey;
let keyC: AgentKey;
const signedWires: string[] = [];
let storedBeforeRotation: { body: Record<string, unknown>; seq: number };

// The agent works on the project: its key Wires anchor on the project's topic too.
const keyWire = (type: string, payload: Record<string, unknown>) =>
  agentWire(agent, agent, { type, payload, correlation_id: project });
const registration = (key: AgentKey) =>
  keyWire('agent.key.registered', { kid: key.kid, alg: 'Ed25519', public_key: key.public_key });

async function count(stream: string) {
  return (await readAll(stream)).length;
}

describe('agent-signed Wires', () => {
  beforeAll(async () => {
    [keyA, keyB, keyC] = await Promise.all([newKey(), newKey(), newKey('ops-issued-c')]);
  });

  it('accepts unsigned Wires from an agent with no key, and logs what the guard costs', async () => {
    const runs = 40;
    const total = { human: 0, agent: 0 };
    // Interleaved, so warm-up and load fall on both alike. human: senders are never
    // looked up; a keyless agent once, then remembered in the isolate for UNKEYED_TTL_MS.
    for (let i = 0; i < runs; i++) {
      for (const [who, sender] of [
        ['human', 'human:sig-baseline'],
        ['agent', agent],
      ] as const) {
        const started = performance.now();
        expect((await signedPost(sender, project, null)).status).toBe(201);
        total[who] += performance.now() - started;
      }
    }
    const guard = await guardCosts(agent);
    console.log(
      `unsigned append, whole request: human ${(total.human / runs).toFixed(2)} ms, keyless agent ${(total.agent / runs).toFixed(2)} ms (${runs} each, interleaved)\n` +
        `signature guard alone: ${Object.entries(guard)
          .map(([k, v]) => `${k} ${(v * 1000).toFixed(0)} µs`)
          .join(', ')}`,
    );
  });

  it('registers a first key with a Wire the new key signs itself (proof of possession)', async () => {
    const res = await postAs(agent, agent, await signWire(registration(keyA), keyA));
    expect(res.status).toBe(201);
  });

  it('refuses an unsigned Wire once the agent has a key, naming the kid it accepts', async () => {
    const before = await count(project);
    const res = await signedPost(agent, project, null);
    expect(await refusal(res)).toMatchObject({
      status: 403,
      type: '/problems/signature-required',
      accepted_kids: [keyA.kid],
    });
    expect(await count(project)).toBe(before);
  });

  it('accepts a Wire signed by the active key and serves it with its sig', async () => {
    const res = await signedPost(agent, project, keyA);
    expect(res.status).toBe(201);
    const { wire_id } = (await res.json()) as { wire_id: string };
    signedWires.push(wire_id);
    const served = (await readAll(project)).find((w) => w.wire_id === wire_id) as unknown as {
      sig: { kid: string; alg: string };
    };
    expect(served.sig).toMatchObject({ kid: keyA.kid, alg: 'Ed25519' });
  });

  it('refuses forged Wires: changed after signing, signed by another key, an unknown kid', async () => {
    const before = await count(project);
    const signed = await signWire(agentWire(project, agent), keyA);
    const altered = { ...signed, payload: { concern: 'changed after signing' } };
    expect(await refusal(await postAs(agent, project, altered))).toMatchObject({
      status: 403,
      type: '/problems/signature-invalid',
      reason: 'bad-signature',
    });
    const impostor = await signWire(agentWire(project, agent), { ...keyB, kid: keyA.kid });
    expect((await refusal(await postAs(agent, project, impostor))).reason).toBe('bad-signature');
    const unknown = await signWire(agentWire(project, agent), keyB);
    expect(await refusal(await postAs(agent, project, unknown))).toMatchObject({
      reason: 'unknown-kid',
      accepted_kids: [keyA.kid],
    });
    expect(await count(project)).toBe(before);
  });

  it('refuses a signature replayed on another stream (stream_id is signed)', async () => {
    const signed = await signWire(agentWire(project, agent), keyA);
    const moved = { ...signed, stream_id: other };
    expect((await refusal(await postAs(agent, other, moved))).reason).toBe('bad-signature');
    expect(await count(other)).toBe(0);
  });

  it('refuses a signature by a sender that cannot hold keys', async () => {
    const body = await signWire(agentWire(project, 'human:sig-ana'), keyA);
    expect(await refusal(await postAs('human:sig-ana', project, body))).toMatchObject({
      status: 403,
      reason: 'unknown-kid',
    });
  });

  it('stores a Wire signed by the active key whose answer the client will not hear', async () => {
    const body = await signWire(agentWire(project, agent), keyA);
    const res = await postAs(agent, project, body);
    expect(res.status).toBe(201);
    storedBeforeRotation = { body, seq: ((await res.json()) as { stream_seq: number }).stream_seq };
  });

  it('rotates: the old key is refused from the next append, the new one accepted', async () => {
    const rotation = keyWire('agent.key.rotated', {
      kid: keyB.kid,
      alg: 'Ed25519',
      public_key: keyB.public_key,
      previous_kid: keyA.kid,
    });
    // An unsigned rotation is refused like any other Wire of the agent.
    expect((await refusal(await postAs(agent, agent, rotation))).type).toBe(
      '/problems/signature-required',
    );
    expect((await postAs(agent, agent, await signWire(rotation, keyA))).status).toBe(201);
    expect(await refusal(await signedPost(agent, project, keyA))).toMatchObject({
      status: 403,
      reason: 'retired',
      accepted_kids: [keyB.kid],
    });
    const res = await signedPost(agent, project, keyB);
    expect(res.status).toBe(201);
    signedWires.push(((await res.json()) as { wire_id: string }).wire_id);
  });

  it('answers a retry of a Wire signed before the rotation with its receipt, not a 403', async () => {
    // keyA signed it, its answer was lost, keyB took over: the retry is a replay.
    const { body, seq } = storedBeforeRotation;
    const again = await postAs(agent, project, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replay')).toBe('true');
    expect(await again.json()).toMatchObject({ wire_id: body.wire_id, stream_seq: seq });
    // A Wire it never stored, signed by the retired key, is still refused.
    const fresh = await signWire(agentWire(project, agent), keyA);
    expect((await refusal(await postAs(agent, project, fresh))).reason).toBe('retired');
  });

  it('revokes: the key is refused from the next append and nothing unsigned gets through', async () => {
    const revocation = keyWire('agent.key.revoked', { kid: keyB.kid, reason: 'laptop lost' });
    expect((await postAs(agent, agent, await signWire(revocation, keyB))).status).toBe(201);
    const before = await count(project);
    expect(await refusal(await signedPost(agent, project, keyB))).toMatchObject({
      status: 403,
      reason: 'revoked',
      accepted_kids: [],
    });
    expect(await refusal(await signedPost(agent, project, null))).toMatchObject({
      type: '/problems/signature-required',
      accepted_kids: [],
    });
    expect(await count(project)).toBe(before);
  });

  it('lets an admin, and no other identity, register a new key for the agent', async () => {
    for (const other of ['agent:sig-someone-else', 'coordinator:sig-conductor']) {
      const forOther = { ...registration(keyC), sender: other };
      expect(await refusal(await postAs(other, agent, forOther))).toMatchObject({
        status: 403,
        type: '/problems/forbidden',
      });
    }
    const byAdmin = { ...registration(keyC), sender: 'human:sig-ops' };
    expect((await postAs('human:sig-ops', agent, byAdmin, ADMIN)).status).toBe(201);
    const res = await signedPost(agent, project, keyC);
    expect(res.status).toBe(201);
    signedWires.push(((await res.json()) as { wire_id: string }).wire_id);
  });

  it('lets an auditor with only mirror data check who signed each anchored Wire', async () => {
    const keys = await untilAnchored(agent, [], 30_000);
    const wires = await untilAnchored(project, [], 30_000);
    const history = await Promise.all(
      keys.filter((w) => w.anchor.status === 'anchored').map((w) => fromMirror(w.anchor as never)),
    );
    expect(history.map((h) => h.envelope.type)).toEqual(
      expect.arrayContaining(['agent.key.registered', 'agent.key.rotated', 'agent.key.revoked']),
    );
    const results = [];
    const anchoredWires: AnchoredEnvelope[] = [];
    for (const id of signedWires) {
      const served = wires.find((w) => w.wire_id === id);
      if (served?.anchor.status !== 'anchored') throw new Error(`${id} is not anchored`);
      const anchored = await fromMirror(served.anchor as never);
      anchoredWires.push(anchored);
      results.push(await verifyAnchoredWire(anchored, history));
      const tampered = { ...anchored.envelope, payload: { concern: 'rewritten' } };
      expect(await verifyAnchoredWire({ ...anchored, envelope: tampered }, history)).toMatchObject({
        ok: false,
        reason: 'bad-signature',
      });
    }
    // A (rotated out) still vouches for what it signed; B was revoked, so its Wire is doubted.
    expect(results).toEqual([
      { ok: true, sender: agent, kid: keyA.kid },
      expect.objectContaining({ ok: false, reason: 'revoked' }),
      { ok: true, sender: agent, kid: keyC.kid },
    ]);
    // A key "registered" by a message someone else paid to put on the topic counts only
    // for an auditor who does not name the coordinator's paying account.
    const payer = history[0]?.payer_account_id ?? '';
    expect(payer).toMatch(/^0\.0\.\d+$/);
    const intruder = await newKey(keyA.kid.replace('ed25519', 'intruder'));
    const forged = await signWire(agentWire(project, agent), intruder);
    const planted = {
      envelope: registration(intruder),
      consensus_timestamp: '1.0',
      payer_account_id: '0.0.666',
    };
    const withPlanted = [...history, planted];
    expect((await verifyAnchoredWire({ envelope: forged }, withPlanted)).ok).toBe(true);
    expect(
      await verifyAnchoredWire({ envelope: forged }, withPlanted, { coordinator: payer }),
    ).toMatchObject({ ok: false, reason: 'unknown-kid' });
    expect(
      await verifyAnchoredWire(anchoredWires[0] ?? { envelope: {} }, history, {
        coordinator: payer,
      }),
    ).toMatchObject({ ok: true, kid: keyA.kid });
    // Without its key's registration the history proves nothing about the Wire.
    const first = history.find((h) => h.envelope.type === 'agent.key.registered');
    const withoutFirst = history.filter((h) => h !== first);
    expect(
      await verifyAnchoredWire(anchoredWires[0] ?? { envelope: {} }, withoutFirst),
    ).toMatchObject({ ok: false, reason: 'unknown-kid' });
  });
});
