import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { type AgentKey, signWire } from '../../src/client';
import { type AppendGuards, appendBody } from '../../src/kernel/append';
import { REGISTRY } from '../../src/modules';
import { signatureGuard } from '../../src/private/signature-rule';
import type { Draft } from '../../src/protocol';
import { streamStub } from '../../src/stream/stub';
import { agentWire, newKey, postAs, refusal, registeredKey, signedPost } from './helpers/signing';
import { readAll, uniqueStream } from './helpers/wires';

/**
 * A key change racing a revocation (or a first registration): the signature
 * guard looks the agent's keys up before the Wire reaches the agent's stream,
 * and the other Wire is stored in between. Each test runs the one append path
 * (`appendBody`, the deployment's signature guard, the agent's StreamObject)
 * with the other Wire posted over the API just before the commit, the
 * interleaving two requests can take.
 */
const project = uniqueStream('project');

/** The agent's key Wires as served: type and kid. */
async function keyWires(agent: string) {
  const wires = (await readAll(agent)) as unknown as { type: string; payload: { kid: string } }[];
  return wires.map((w) => [w.type, w.payload.kid]);
}

const keyWire = (agent: string, type: string, payload: Record<string, unknown>) =>
  agentWire(agent, agent, { type, payload, correlation_id: null });
const registration = (agent: string, key: AgentKey) =>
  keyWire(agent, 'agent.key.registered', {
    kid: key.kid,
    alg: 'Ed25519',
    public_key: key.public_key,
  });

/** `body` appended to `agent`'s stream after the guard passed it, `meanwhile` stored in between. */
async function racing(agent: string, body: unknown, meanwhile: () => Promise<Response>) {
  const guard = signatureGuard(env as never);
  const guards: AppendGuards = {
    rights: () => null,
    async signature(draft: Draft) {
      const refused = await guard(draft);
      return refused ?? { ok: true, draft };
    },
  };
  return appendBody(
    {
      body,
      streamId: agent,
      env: env as never,
      guards,
      async commit(draft, expectedSeq) {
        expect((await meanwhile()).status).toBe(201);
        return streamStub(env, agent).append(draft, expectedSeq);
      },
    },
    REGISTRY,
  );
}

describe('a key change racing another key Wire', { timeout: 30_000 }, () => {
  it('is refused when its signing key was revoked after the guard checked it: a revoked key adds no key', async () => {
    const agent = uniqueStream('agent').replace('agent:t', 'agent:race');
    const k1 = await registeredKey(agent);
    const k2 = await newKey();
    expect((await postAs(agent, agent, await signWire(registration(agent, k2), k1))).status).toBe(
      201,
    );
    // Whoever holds k1 (and the token) registers k3 with it, while the agent revokes k1 with k2.
    const k3 = await newKey();
    const stolen = await signWire(registration(agent, k3), k1);
    const revocation = await signWire(
      keyWire(agent, 'agent.key.revoked', { kid: k1.kid, reason: 'laptop lost' }),
      k2,
    );
    const result = await racing(agent, stolen, () => postAs(agent, agent, revocation));
    expect(result).toMatchObject({
      ok: false,
      code: 'signature-invalid',
      extra: { kid: k1.kid, reason: 'revoked', accepted_kids: [k2.kid] },
    });
    expect(await keyWires(agent)).toEqual([
      ['agent.key.registered', k1.kid],
      ['agent.key.registered', k2.kid],
      ['agent.key.revoked', k1.kid],
    ]);
    expect(await refusal(await signedPost(agent, project, k3))).toMatchObject({
      status: 403,
      reason: 'unknown-kid',
    });
    expect((await signedPost(agent, project, k2)).status).toBe(201);
  });

  it('is refused unsigned once the agent’s first key was stored after the guard took it for keyless', async () => {
    const agent = uniqueStream('agent').replace('agent:t', 'agent:race');
    const k1 = await newKey();
    const own = await signWire(registration(agent, k1), k1);
    // A token alone (no key) registers another key, while the agent registers its first one.
    const intruder = await newKey();
    const result = await racing(agent, registration(agent, intruder), () =>
      postAs(agent, agent, own),
    );
    expect(result).toMatchObject({
      ok: false,
      code: 'signature-required',
      extra: { accepted_kids: [k1.kid] },
    });
    expect(await keyWires(agent)).toEqual([['agent.key.registered', k1.kid]]);
  });
});
