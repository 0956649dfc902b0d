import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyTopic } from '../../src/anchor/verify-topic';
import {
  type AgentKey,
  type AnchoredEnvelope,
  signWire,
  verifyAnchoredWire,
} from '../../src/client';
import { unwrapDataKey } from '../../src/private/key-store';
import { openEnvelope } from '../../src/private/seal';
import { canonicalJson } from '../../src/protocol';
import { parseBase64, toBase64 } from '../../src/protocol/base64';
import { directoryStub } from '../../src/topic/topic-directory';
import { readWires, standinUrl, untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { agentWire, fromMirror, newKey, postAs, refusal } from './helpers/signing';
import { readAll, uniqueStream } from './helpers/wires';

/**
 * Issue 31: agent-signed Wires in a private project. The SDK signs in the
 * committed form (`sig.salt`, the signature over a salted payload
 * commitment); the TopicObject seals the payload and the salt, leaving
 * `sig.commitment` in the clear, so an auditor without the data key checks
 * the signature from mirror data alone and one with the key also checks the
 * payload. The deployment (vitest.config.ts) makes `project:vault-…` and
 * correlations `vault-…` private.
 */
const agent = uniqueStream('agent').replace('agent:t', 'agent:sigp');
const vault = uniqueStream('project').replace('project:', 'project:vault-sig-');
const vaultTopic = `project.${vault.slice('project:'.length)}`;
const otherVault = uniqueStream('project').replace('project:', 'project:vault-sig-');
const open = uniqueStream('project');
const openTopic = `project.${open.slice('project:'.length)}`;
const SECRET = `SECRET-${Date.now().toString(36)}`;
const UTF8 = new TextEncoder();

let key: AgentKey;
/** Two Wires with the same payload, and a third: their signed bodies as posted. */
const sealedBodies: Record<string, unknown>[] = [];
let publicBody: Record<string, unknown>;
let history: AnchoredEnvelope[] = [];
const anchored: AnchoredEnvelope[] = [];

const privateWire = (payload: Record<string, unknown>) =>
  agentWire(vault, agent, { correlation_id: null, payload });
const encKid = (x: AnchoredEnvelope) => (x.envelope.enc as { kid: string }).kid;
const saltOf = (body: Record<string, unknown>) => (body.sig as { salt: string }).salt;

async function dataKey(kid: string): Promise<CryptoKey> {
  const row = (await directoryStub(env).dataKeys()).find((k) => k.kid === kid);
  if (!row) throw new Error(`no data key ${kid}`);
  return unwrapDataKey(env, row);
}

describe('agent-signed Wires in a private project', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    key = await newKey();
    const registration = agentWire(agent, agent, {
      type: 'agent.key.registered',
      payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
    });
    expect((await postAs(agent, agent, await signWire(registration, key))).status).toBe(201);
    const payloads = [{ concern: SECRET }, { concern: SECRET }, { concern: `${SECRET}-2` }];
    for (const payload of payloads) {
      const body = await signWire(privateWire(payload), key);
      expect((await postAs(agent, vault, body)).status).toBe(201);
      sealedBodies.push(body);
    }
    publicBody = await signWire(agentWire(open, agent, { correlation_id: null }), key);
    expect((await postAs(agent, open, publicBody)).status).toBe(201);
    const started = Date.now();
    const served = await untilAnchored(vault, [vaultTopic], 30_000);
    await untilAnchored(open, [openTopic], 30_000);
    const keys = await untilAnchored(agent, [], 30_000);
    console.log(`signed private Wires anchored ${Date.now() - started} ms after the last post`);
    history = await Promise.all(keys.map((w) => fromMirror(w.anchor as never)));
    for (const w of served) anchored.push(await fromMirror(w.anchor as never));
  });

  it('puts ciphertext and the commitment on the ledger: no salt, no plaintext', () => {
    expect(anchored).toHaveLength(sealedBodies.length);
    for (const [i, { envelope }] of anchored.entries()) {
      const text = canonicalJson(envelope);
      const body = sealedBodies[i] ?? {};
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(saltOf(body));
      expect(envelope.enc).toMatchObject({ alg: 'A256GCM' });
      expect(typeof envelope.payload).toBe('string');
      const { salt: _s, ...signed } = body.sig as Record<string, unknown>;
      expect(envelope.sig).toEqual({ ...signed, commitment: expect.stringMatching(/^[\w-]{43}$/) });
    }
    // Equal payloads, unequal commitments: the salt hides even equality.
    const [a, b] = anchored.map((x) => (x.envelope.sig as { commitment: string }).commitment);
    expect(a).not.toBe(b);
  });

  it('serves readers the Wire as posted, which the key recovers exactly from the ledger', async () => {
    const served = (await readAll(vault)) as unknown as Record<string, unknown>[];
    expect(served[0]).toMatchObject({ payload: { concern: SECRET }, sig: sealedBodies[0]?.sig });
    for (const [i, x] of anchored.entries()) {
      const opened = await openEnvelope(x.envelope, await dataKey(encKid(x)));
      const { anchor: _a, received_at: _r, ...wire } = served[i] ?? {};
      expect(opened.ok && canonicalJson(opened.wire)).toBe(canonicalJson(wire));
    }
    // The topic audit compares the served clear fields (salt → commitment) with the sealed ones.
    const asReader = async (path: string) =>
      SELF.fetch(`https://ws.test${path}`, { headers: await authHeaders('human:ops', ['read']) });
    const topic = (await readWires(vault))[0]?.anchor.hcs_topic_id ?? '';
    expect(await verifyTopic(standinUrl(), topic, asReader)).toMatchObject({
      ok: true,
      anchors_checked: sealedBodies.length,
      findings: [],
    });
  });

  it('lets an auditor without the key verify the signature, and catches tampering', async () => {
    for (const x of anchored) {
      expect(await verifyAnchoredWire(x, history)).toEqual({
        ok: true,
        sender: agent,
        kid: key.kid,
        payload: 'sealed',
      });
    }
    const [x, y] = anchored as [AnchoredEnvelope, AnchoredEnvelope];
    const sig = x.envelope.sig as Record<string, unknown>;
    const otherCommitment = (y.envelope.sig as { commitment: string }).commitment;
    const tampered = [
      { ...x.envelope, sig: { ...sig, commitment: otherCommitment } },
      { ...x.envelope, type: 'review.approved' },
      { ...x.envelope, stream_id: otherVault },
    ];
    for (const envelope of tampered) {
      expect(await verifyAnchoredWire({ ...x, envelope }, history)).toMatchObject({
        ok: false,
        reason: 'bad-signature',
      });
    }
  });

  it('lets a reader with the key decrypt and check the payload against the commitment', async () => {
    for (const x of anchored) {
      expect(await verifyAnchoredWire(x, history, { dataKey })).toMatchObject({
        ok: true,
        payload: 'opened',
      });
    }
    // A sealer that put another salt inside than the one committed to is caught with the
    // key (sealed here by the documented format: AAD = envelope without payload).
    const x = anchored[0] as AnchoredEnvelope;
    const { payload: _p, ...clear } = x.envelope;
    const enc = clear.enc as { kid: string; iv: string };
    const plain = { payload: { concern: SECRET }, salt: saltOf(sealedBodies[1] ?? {}) };
    const iv = parseBase64(enc.iv) ?? new Uint8Array(12);
    const additionalData = UTF8.encode(canonicalJson(clear));
    const sealed = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData },
      await dataKey(enc.kid),
      UTF8.encode(canonicalJson(plain)),
    );
    const forged = { ...x.envelope, payload: toBase64(new Uint8Array(sealed)) };
    expect(await verifyAnchoredWire({ envelope: forged }, history)).toMatchObject({ ok: true });
    expect(await verifyAnchoredWire({ envelope: forged }, history, { dataKey })).toMatchObject({
      ok: false,
      reason: 'payload-mismatch',
      detail: expect.stringContaining('sig.commitment'),
    });
  });

  it('refuses a plain-form signature on a private Wire (403 naming sig.salt), storing nothing', async () => {
    const before = (await readAll(vault)).length;
    const plain = await signWire(privateWire({ concern: 'plain' }), key, { form: 'plain' });
    // Public by its stream, private by its correlation: the same rule.
    const byCorrelation = await signWire(
      agentWire(open, agent, { correlation_id: 'vault-q1' }),
      key,
      { form: 'plain' },
    );
    for (const [stream, body] of [
      [vault, plain],
      [open, byCorrelation],
    ] as const) {
      const res = await postAs(agent, stream, body);
      const problem = await refusal(res);
      expect(problem).toMatchObject({
        status: 403,
        type: '/problems/signature-invalid',
        reason: 'commitment-required',
      });
      expect(problem.detail).toMatch(/^sig\.salt: .*private project "vault".*committed form/);
    }
    expect((await readAll(vault)).length).toBe(before);
  });

  it('refuses a committed signature replayed on another stream or with another salt', async () => {
    const body = sealedBodies[0] ?? {};
    const replayed = { ...body, stream_id: otherVault };
    const resalted = {
      ...body,
      sig: { ...(body.sig as object), salt: saltOf(sealedBodies[1] ?? {}) },
    };
    for (const [stream, wire] of [
      [otherVault, replayed],
      [vault, { ...resalted, wire_id: `${String(body.wire_id)}x` }],
    ] as const) {
      expect(await refusal(await postAs(agent, stream, wire))).toMatchObject({
        status: 403,
        type: '/problems/signature-invalid',
        reason: 'bad-signature',
      });
    }
    expect(await readAll(otherVault)).toEqual([]);
  });

  it('keeps the committed form verifiable in the clear on public Wires, beside the plain form', async () => {
    const served = await readWires(open);
    const mine = served.find((w) => w.wire_id === publicBody.wire_id);
    if (mine?.anchor.status !== 'anchored') throw new Error('public Wire not anchored');
    const x = await fromMirror(mine.anchor as never);
    expect(x.envelope.enc).toBeUndefined();
    expect(x.envelope.sig).toEqual(publicBody.sig);
    expect(await verifyAnchoredWire(x, history)).toEqual({ ok: true, sender: agent, kid: key.kid });
    const { salt, ...signed } = x.envelope.sig as Record<string, unknown>;
    const rewritten = { ...x.envelope, payload: { concern: 'rewritten' } };
    // A commitment stands for a payload only where the payload is sealed.
    const commitment = (anchored[0] as AnchoredEnvelope).envelope.sig as { commitment: string };
    const unsealedCommitment = {
      ...x.envelope,
      sig: { ...signed, commitment: commitment.commitment },
    };
    for (const envelope of [rewritten, unsealedCommitment]) {
      expect(await verifyAnchoredWire({ envelope }, history)).toMatchObject({
        ok: false,
        reason: 'bad-signature',
      });
    }
    expect(typeof salt).toBe('string');
    const plain = await signWire(agentWire(open, agent, { correlation_id: null }), key, {
      form: 'plain',
    });
    expect((await postAs(agent, open, plain)).status).toBe(201);
    expect(await verifyAnchoredWire({ envelope: plain }, history)).toMatchObject({ ok: true });
  });
});

describe('an agent whose key Wires name a private correlation', { timeout: 60_000 }, () => {
  it('keeps its key Wires in the clear, so an auditor without the data key checks its sealed Wires', async () => {
    const keyed = uniqueStream('agent').replace('agent:t', 'agent:sigk');
    const stream = `project:vault-k${Date.now().toString(36).slice(-6)}`;
    const correlation = `vault-k${Date.now().toString(36).slice(-5)}`;
    const [first, next] = [await newKey(), await newKey()];
    const keyWire = (type: string, payload: Record<string, unknown>) =>
      agentWire(keyed, keyed, { type, payload, correlation_id: correlation });
    const registration = keyWire('agent.key.registered', {
      kid: first.kid,
      alg: 'Ed25519',
      public_key: first.public_key,
    });
    expect((await postAs(keyed, keyed, await signWire(registration, first))).status).toBe(201);
    const rotation = keyWire('agent.key.rotated', {
      kid: next.kid,
      alg: 'Ed25519',
      public_key: next.public_key,
      previous_kid: first.kid,
    });
    expect((await postAs(keyed, keyed, await signWire(rotation, first))).status).toBe(201);
    const body = await signWire(
      agentWire(stream, keyed, { correlation_id: correlation, payload: { concern: SECRET } }),
      next,
    );
    expect((await postAs(keyed, stream, body)).status).toBe(201);
    const keys = await untilAnchored(keyed, [], 30_000);
    const served = await untilAnchored(stream, [], 30_000);
    const keyHistory = await Promise.all(keys.map((w) => fromMirror(w.anchor as never)));
    for (const { envelope } of keyHistory) {
      expect(envelope.enc).toBeUndefined();
      expect(envelope.payload).toMatchObject({ alg: 'Ed25519', public_key: expect.any(String) });
    }
    const sealed = await fromMirror(served[0]?.anchor as never);
    expect(typeof sealed.envelope.payload).toBe('string');
    expect(await verifyAnchoredWire(sealed, keyHistory)).toEqual({
      ok: true,
      sender: keyed,
      kid: next.kid,
      payload: 'sealed',
    });
  });
});
