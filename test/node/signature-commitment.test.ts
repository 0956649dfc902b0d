import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type AgentKey,
  agentKeyFromJwk,
  generateAgentKeyJwk,
  signWire,
  verifyAnchoredWire,
} from '../../src/client';
import { aesKey, openEnvelope, sealWire } from '../../src/private/seal';
import { signatureVerifies, type Wire } from '../../src/protocol';

/**
 * The committed signing form (issue 31) from the documented format alone:
 * the signature and the commitment are checked here with Node's own Ed25519
 * and SHA-256 over hand-built JSON (README, Agent-signed Wires), then sealed
 * and opened, and a plain-form signature under a sealed payload is shown to
 * need the key.
 */
const agent = 'agent:quinn-07';
const draft = {
  wire: '1.1' as const,
  wire_id: 'w-1',
  stream_id: 'project:acme',
  correlation_id: null,
  causation_id: null,
  type: 'review.concern',
  sender: agent,
  ts: '2026-11-27T18:00:00Z',
  payload: { concern: 'the merger', n: 1 },
};
const b64url = (b: Buffer) => b.toString('base64url');

async function keyAndHistory(): Promise<[AgentKey, { envelope: Record<string, unknown> }[]]> {
  const key = await agentKeyFromJwk(await generateAgentKeyJwk());
  const registration = {
    stream_id: agent,
    type: 'agent.key.registered',
    payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
  };
  return [key, [{ envelope: registration }]];
}

describe('the committed signing form', () => {
  it('signs payload_commitment = base64url(SHA-256(salt ‖ JCS(payload))) in place of payload', async () => {
    const [key] = await keyAndHistory();
    const signed = await signWire(draft, key);
    const salt = signed.sig.salt ?? '';
    expect(salt).toMatch(/^[\w-]{43}$/);
    const commitment = b64url(
      createHash('sha256')
        .update(
          Buffer.concat([
            Buffer.from(salt, 'base64url'),
            Buffer.from('{"concern":"the merger","n":1}'),
          ]),
        )
        .digest(),
    );
    // RFC 8785 of the signed members: keys sorted, no whitespace.
    const input = `{"causation_id":null,"correlation_id":null,"payload_commitment":"${commitment}","sender":"${agent}","stream_id":"project:acme","ts":"2026-11-27T18:00:00Z","type":"review.concern","wire":"1.1","wire_id":"w-1"}`;
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: key.public_key },
      format: 'jwk',
    });
    expect(
      verify(null, Buffer.from(input), publicKey, Buffer.from(signed.sig.value, 'base64url')),
    ).toBe(true);
    expect(await signatureVerifies(signed, signed.sig, key.public_key)).toBe(true);
    const changed = { ...signed, payload: { concern: 'the merger', n: 2 } };
    expect(await signatureVerifies(changed, signed.sig, key.public_key)).toBe(false);
    const both = { ...signed.sig, commitment };
    expect(await signatureVerifies(signed, both, key.public_key)).toBe(false);
    // Each signature has its own salt: equal payloads, unequal signatures.
    expect((await signWire(draft, key)).sig.salt).not.toBe(salt);
  });

  it('seals the salt with the payload and opens the Wire exactly', async () => {
    const [key, history] = await keyAndHistory();
    const dataKey = await aesKey(randomBytes(32));
    const signed: Wire = { ...(await signWire(draft, key)), stream_seq: 1 };
    const text = await sealWire(signed, 'dk-1', dataKey);
    expect(text).not.toContain(signed.sig?.salt ?? '?');
    expect(text).not.toContain('the merger');
    const envelope = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(envelope.sig as object).sort()).toEqual([
      'alg',
      'commitment',
      'kid',
      'value',
    ]);
    expect(await openEnvelope(envelope, dataKey)).toEqual({ ok: true, wire: signed });
    expect(await verifyAnchoredWire({ envelope }, history)).toMatchObject({ payload: 'sealed' });
    const withKey = await verifyAnchoredWire({ envelope }, history, { dataKey: () => dataKey });
    expect(withKey).toMatchObject({ ok: true, payload: 'opened' });
    const lost = await verifyAnchoredWire({ envelope }, history, {
      dataKey: () => Promise.reject(new Error('gone')),
    });
    expect(lost).toMatchObject({ ok: false, reason: 'needs-key' });
  });

  it('says a plain-form signature under a sealed payload needs the key, and checks it with it', async () => {
    const [key, history] = await keyAndHistory();
    const dataKey = await aesKey(randomBytes(32));
    const plain: Wire = { ...(await signWire(draft, key, { form: 'plain' })), stream_seq: 1 };
    expect(plain.sig?.salt).toBeUndefined();
    const envelope = JSON.parse(await sealWire(plain, 'dk-1', dataKey)) as Record<string, unknown>;
    expect(await verifyAnchoredWire({ envelope }, history)).toMatchObject({
      ok: false,
      reason: 'needs-key',
    });
    expect(
      await verifyAnchoredWire({ envelope }, history, { dataKey: () => dataKey }),
    ).toMatchObject({ ok: true, kid: key.kid, payload: 'opened' });
  });
});
