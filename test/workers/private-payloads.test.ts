import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { noteOfMessage } from '../../src/anchor/log/hcs27';
import { leafHash, verifyInclusion } from '../../src/anchor/log/merkle';
import { openNote, parseCheckpoint, parseVerifierKey } from '../../src/anchor/log/note';
import { verifyTopic } from '../../src/anchor/verify-topic';
import { createApp } from '../../src/api/app';
import { sqlOf } from '../../src/kernel/sql';
import { DataKeys, unwrapDataKey } from '../../src/private/key-store';
import { openEnvelope } from '../../src/private/seal';
import { envelopeOpener, PayloadSealer } from '../../src/private/sealer';
import { canonicalJson, type StoredWire } from '../../src/protocol';
import { fromBase64 } from '../../src/protocol/base64';
import { topicStub } from '../../src/topic/stub';
import { directoryStub } from '../../src/topic/topic-directory';
import {
  api,
  type MirrorMessage,
  mirrorMessages,
  readWires,
  standinUrl,
  untilAnchored,
} from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { comparableDump, rebuildWithout, runRebuild, untilQuiet } from './helpers/projection-live';
import { Subscriber } from './helpers/subscriber';
import { post, uniqueStream, wire11 } from './helpers/wires';

/**
 * Private payloads (issue 31) on the real path: workerd, the stand-in
 * network, the real SDK. The deployment (vitest.config.ts) makes the "vault"
 * project private (streams `project:vault-…`, correlations `vault-…`) and holds
 * two KEKs mid-rotation: `test-kek-b` current, `test-kek-a` still readable.
 * The project's data key was made while `test-kek-a` was the only one.
 */
const KEK_A = (env.PAYLOAD_KEK ?? '').split(',')[1] ?? '';
const KEK_B = (env.PAYLOAD_KEK ?? '').split(',')[0] ?? '';
const SECRET = `SECRET-${Date.now().toString(36)}`;
const UTF8 = new TextEncoder();
const textOf = (m: MirrorMessage) => new TextDecoder().decode(fromBase64(m.message));

const vault = uniqueStream('project').replace('project:', 'project:vault-');
const vaultTopic = `project.${vault.slice('project:'.length)}`;
const logged = uniqueStream('project').replace('project:', 'project:vault-log-');
const loggedTopic = `project.${logged.slice('project:'.length)}`;
/** A public stream (its topic too), with one Wire private by its correlation. */
const open = uniqueStream('project');
const openTopic = `project.${open.slice('project:'.length)}`;
const correlated = wire11(open, {
  correlation_id: 'vault-q4',
  payload: { concern: `${SECRET}-by-correlation` },
});
/** Nothing private about it: the control that shows a payload in the clear on the ledger. */
const control = wire11(open, { correlation_id: null, payload: { concern: `${SECRET}-public` } });
const bodies = [0, 1, 2].map((i) =>
  wire11(vault, { correlation_id: null, payload: { concern: `${SECRET}-${i}`, n: i } }),
);
const logBodies = [0, 1, 2, 3].map((i) =>
  wire11(logged, { correlation_id: null, payload: { concern: `${SECRET}-log-${i}` } }),
);
const admin = () => authHeaders('human:ops', ['admin']);
const topicIdOf = async (streamId: string) =>
  (await readWires(streamId))[0]?.anchor.hcs_topic_id ?? '';

async function vaultKeyRow() {
  const row = (await directoryStub(env).dataKeys()).find((k) => k.project === 'vault');
  if (!row) throw new Error('no data key for vault');
  return row;
}

describe('private payloads', () => {
  let frames: { kind: string; wires?: StoredWire[] }[] = [];

  beforeAll(async () => {
    // Before the rotation began: the data key is made under the only KEK there was.
    const made = await runInDurableObject(
      env.TOPIC_DIRECTORY.get(env.TOPIC_DIRECTORY.idFromName('directory')),
      (_o, state) =>
        new DataKeys(sqlOf(state.storage.sql), { PAYLOAD_KEK: KEK_A }).forProject('vault'),
    );
    expect(made.kek_kid).toBe('test-kek-a');
    await topicStub(env, loggedTopic).setAnchoring({ mode: 'log', every: 4, ms: 4000 });
    const sub = await Subscriber.open(vault, 0);
    const started = Date.now();
    for (const body of bodies) expect((await post(vault, body)).status).toBe(201);
    for (const body of logBodies) expect((await post(logged, body)).status).toBe(201);
    expect((await post(open, correlated)).status).toBe(201);
    expect((await post(open, control)).status).toBe(201);
    await untilAnchored(vault, [vaultTopic]);
    await untilAnchored(logged, [loggedTopic], 30_000);
    await untilAnchored(open, [openTopic]);
    await sub.until(() => sub.seqs.length === bodies.length);
    sub.close();
    frames = sub.frames as typeof frames;
    console.log(
      `private payloads: 9 Wires anchored ${Date.now() - started} ms after the first post`,
    );
  }, 60_000);

  it('puts ciphertext on the ledger, routing fields in the clear', async () => {
    const onLedger = (await mirrorMessages(await topicIdOf(vault))).map(textOf);
    expect(onLedger).toHaveLength(bodies.length);
    const { kid } = await vaultKeyRow();
    for (const [i, text] of onLedger.entries()) {
      expect(text).not.toContain(SECRET);
      const envelope = JSON.parse(text) as Record<string, unknown>;
      const { payload: _p, ...clear } = bodies[i] ?? {};
      expect(envelope).toMatchObject({ ...clear, stream_seq: i + 1 });
      expect(envelope.enc).toEqual({ alg: 'A256GCM', kid, iv: expect.any(String) });
      expect(typeof envelope.payload).toBe('string');
      expect(canonicalJson(envelope)).toBe(text);
    }
    // Private by its correlation, on a shared topic beside a public Wire in the clear.
    const shared = (await mirrorMessages(await topicIdOf(open))).map(textOf);
    const mine = shared.find((t) => t.includes(correlated.wire_id)) ?? '';
    expect(mine).not.toContain(SECRET);
    expect(JSON.parse(mine)).toMatchObject({ correlation_id: 'vault-q4', enc: { kid } });
    expect(shared.some((t) => t.includes(`${SECRET}-public`))).toBe(true);
  });

  it('serves plaintext to readers: REST, the D1 read model, WebSocket', async () => {
    const served = await readWires(vault);
    expect(served.map((w) => (w as unknown as StoredWire).payload)).toEqual(
      bodies.map((b) => b.payload),
    );
    const live = frames.flatMap((f) => (f.kind === 'wires' ? (f.wires ?? []) : []));
    expect(live.map((w) => w.payload)).toEqual(bodies.map((b) => b.payload));
    await untilQuiet();
    const rows = await env.DB.prepare(
      'SELECT payload FROM wire_events WHERE stream_id = ? ORDER BY stream_seq',
    )
      .bind(vault)
      .all<{ payload: string }>();
    expect(rows.results.map((r) => JSON.parse(r.payload))).toEqual(bodies.map((b) => b.payload));
    const one = await SELF.fetch(`https://ws.test/v1/wires/${bodies[0]?.wire_id}`, {
      headers: await authHeaders('human:reader', ['read']),
    });
    expect(await one.text()).toContain(`${SECRET}-0`);
  });

  it('lets an auditor without the key verify the running hashes and every anchored envelope', async () => {
    const topicId = await topicIdOf(vault);
    const asReader = async (path: string) =>
      SELF.fetch(`https://ws.test${path}`, { headers: await authHeaders('human:ops', ['read']) });
    const report = await verifyTopic(standinUrl(), topicId, asReader);
    expect(report).toMatchObject({ ok: true, anchors_checked: bodies.length, findings: [] });
    const proof = (await (await api(`/v1/wires/${bodies[1]?.wire_id}/proof`)).json()) as {
      message: string;
      hcs_sequence_number: number;
    };
    expect(proof.message).not.toContain(SECRET);
    expect(proof.message).toBe((await mirrorMessages(topicId)).map(textOf)[1]);
  });

  it('binds the clear fields: ciphertext moved to another Wire or a changed field does not open', async () => {
    const key = await unwrapDataKey(env, await vaultKeyRow());
    const [first, second] = (await mirrorMessages(await topicIdOf(vault))).map(
      (m) => JSON.parse(textOf(m)) as Record<string, unknown>,
    );
    if (!first || !second) throw new Error('two messages expected');
    expect(await openEnvelope(first, key)).toEqual({
      ok: true,
      wire: bodies[0] && { ...bodies[0], stream_seq: 1 },
    });
    const moved = await openEnvelope({ ...second, payload: first.payload }, key);
    expect(moved).toMatchObject({ ok: false, detail: expect.stringContaining('does not open') });
    expect((await openEnvelope({ ...first, type: 'review.approved' }, key)).ok).toBe(false);
  });

  it('log mode: leaves are the sealed envelopes, and inclusion verifies without the key', async () => {
    const topicId = await topicIdOf(logged);
    const onHcs = (await mirrorMessages(topicId)).map(textOf);
    expect(onHcs.every((n) => !n.includes(SECRET))).toBe(true);
    // Each message is an HCS-27 checkpoint message carrying the signed note.
    const notes = onHcs.map(noteOfMessage);
    for (const [i, body] of logBodies.entries()) {
      const proof = (await (await api(`/v1/wires/${body.wire_id}/proof`)).json()) as {
        leaf: string;
        leaf_index: number;
        tree_size: number;
        inclusion_path: string[];
        checkpoint: string;
        verifier_key: string;
      };
      expect(proof.leaf).not.toContain(SECRET);
      expect(JSON.parse(proof.leaf)).toMatchObject({
        wire_id: body.wire_id,
        enc: { alg: 'A256GCM' },
      });
      const verifier = await parseVerifierKey(proof.verifier_key);
      const opened = verifier ? await openNote(proof.checkpoint, verifier) : null;
      const checkpoint = opened?.ok ? parseCheckpoint(opened.text) : null;
      if (!checkpoint) throw new Error('the checkpoint does not open with the log key');
      expect(notes).toContain(proof.checkpoint);
      const hash = await leafHash(UTF8.encode(proof.leaf));
      const path = proof.inclusion_path.map((p) => fromBase64(p));
      expect(await verifyInclusion(i, proof.tree_size, hash, path, checkpoint.root)).toBe(true);
    }
    const served = await readWires(logged);
    expect(served.map((w) => (w as unknown as StoredWire).payload)).toEqual(
      logBodies.map((b) => b.payload),
    );
  });

  it('rebuilds the read models from the mirror exactly, with the key', async () => {
    await untilQuiet();
    const live = await comparableDump();
    expect(live.wire_events.filter((w) => w.stream_id === vault)).toHaveLength(bodies.length);
    const lines = await rebuildWithout([vault, open]);
    expect(lines.filter((l) => l.phase === 'retry' || l.phase === 'error')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    expect(await comparableDump()).toEqual(live);
  }, 60_000);

  it('rotates the KEK: data keys re-wrapped, nothing re-anchored, everything readable with the new KEK alone', async () => {
    const topicId = await topicIdOf(vault);
    const before = (await mirrorMessages(topicId)).length;
    const res = await SELF.fetch('https://ws.test/v1/admin/private-keys/rewrap', {
      method: 'POST',
      headers: await admin(),
    });
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      kek_kid: string;
      rewrapped: string[];
      failed: unknown[];
    };
    const row = await vaultKeyRow();
    expect(report).toMatchObject({ kek_kid: 'test-kek-b', rewrapped: [row.kid], failed: [] });
    const listed = await SELF.fetch('https://ws.test/v1/admin/private-keys', {
      headers: await admin(),
    });
    expect(await listed.json()).toMatchObject({
      kek_kids: ['test-kek-b', 'test-kek-a'],
      problems: [],
      keys: [{ kid: row.kid, project: 'vault', kek_kid: 'test-kek-b' }],
    });
    // The old KEK can go: the new one alone opens what is on the ledger.
    const key = await unwrapDataKey({ PAYLOAD_KEK: KEK_B }, row);
    const onLedger = (await mirrorMessages(topicId)).map((m) => JSON.parse(textOf(m)));
    const opened = await Promise.all(onLedger.map((e) => openEnvelope(e, key)));
    expect(opened.map((o) => (o.ok ? o.wire.payload : o.detail))).toEqual(
      bodies.map((b) => b.payload),
    );
    await expect(unwrapDataKey({ PAYLOAD_KEK: KEK_A }, row)).rejects.toThrow(/no key "test-kek-b"/);
    // A Wire after the rotation is sealed with the same data key; nothing else was sent.
    const later = wire11(vault, { correlation_id: null, payload: { concern: `${SECRET}-later` } });
    expect((await post(vault, later)).status).toBe(201);
    await untilAnchored(vault, [vaultTopic]);
    const after = (await mirrorMessages(topicId)).map(textOf);
    expect(after).toHaveLength(before + 1);
    expect(JSON.parse(after.at(-1) ?? '{}')).toMatchObject({ enc: { kid: row.kid } });
    expect(
      (await readWires(vault)).map((w) => (w as unknown as StoredWire).payload).at(-1),
    ).toEqual(later.payload);
    const rebuilt = await runRebuild();
    expect(rebuilt.at(-1)).toMatchObject({ phase: 'done' });
  }, 60_000);
});

describe('private payloads misconfigured', () => {
  const app = createApp();
  const postWith = async (vars: Partial<typeof env>, streamId: string, body: unknown) =>
    app.fetch(
      new Request(`https://ws.test/v1/streams/${streamId}/wires`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(await authHeaders('agent:quinn-07')) },
        body: JSON.stringify(body),
      }),
      { ...env, ...vars },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );

  it('exports the data key of a project taken out of PRIVATE_PROJECTS, whose sealed Wires stay', async () => {
    const exportWith = async (vars: Partial<typeof env>, project: string) =>
      app.fetch(
        new Request('https://ws.test/v1/admin/private-keys/export', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(await admin()) },
          body: JSON.stringify({ project }),
        }),
        { ...env, ...vars },
        { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
      );
    const without = { PRIVATE_PROJECTS: '{"other":{"streams":["project:other-"]}}' };
    const res = await exportWith(without, 'vault');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ project: 'vault', alg: 'A256GCM' });
    // A name that never had a key is still a 422 on `project`.
    const never = await exportWith(without, 'nope');
    expect(never.status).toBe(422);
    expect(await never.json()).toMatchObject({ errors: [{ path: 'project' }] });
  });

  it('refuses a private Wire without a KEK (503 naming PAYLOAD_KEK), public ones go on', async () => {
    const stream = uniqueStream('project').replace('project:', 'project:vault-');
    const res = await postWith({ PAYLOAD_KEK: undefined }, stream, wire11(stream));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      type: '/problems/private-payloads-unavailable',
      detail: expect.stringMatching(/private project "vault": PAYLOAD_KEK is not set/),
    });
    expect((await readWires(stream)).length).toBe(0);
    const publicStream = uniqueStream('project');
    expect(
      (await postWith({ PAYLOAD_KEK: undefined }, publicStream, wire11(publicStream))).status,
    ).toBe(201);
  });

  it('refuses every Wire while PRIVATE_PROJECTS cannot be read, and a malformed KEK', async () => {
    const stream = uniqueStream('project');
    const bad = await postWith(
      { PRIVATE_PROJECTS: '{"vault": ["project:vault-"]' },
      stream,
      wire11(stream),
    );
    expect(bad.status).toBe(503);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(
      /^PRIVATE_PROJECTS is not JSON/,
    );
    const wrongShape = await postWith(
      { PRIVATE_PROJECTS: '{"vault": {"stream": ["x"]}}' },
      stream,
      wire11(stream),
    );
    expect(((await wrongShape.json()) as { detail: string }).detail).toMatch(
      /PRIVATE_PROJECTS\.vault\.stream/,
    );
    const vaultStream = uniqueStream('project').replace('project:', 'project:vault-');
    const shortKey = await postWith({ PAYLOAD_KEK: 'k1:AAAA' }, vaultStream, wire11(vaultStream));
    expect(shortKey.status).toBe(503);
    expect(((await shortKey.json()) as { detail: string }).detail).toMatch(/PAYLOAD_KEK entry 1/);
  });

  it('the topic will not store (so never anchor) a private Wire it cannot seal; a rebuild without the key stops', async () => {
    const stream = uniqueStream('project').replace('project:', 'project:vault-');
    const wire = {
      ...wire11(stream, { correlation_id: null }),
      stream_seq: 1,
      received_at: new Date().toISOString(),
    };
    let stored = false;
    const sealer = new PayloadSealer({ ...env, PAYLOAD_KEK: undefined });
    expect(() => sealer.run([wire as StoredWire], () => (stored = true))).toThrow(
      /PAYLOAD_KEK is not set/,
    );
    expect(stored).toBe(false);
    const sealed = JSON.parse(
      textOf((await mirrorMessages(await topicIdOf(vault)))[0] as MirrorMessage),
    ) as unknown;
    await expect(
      envelopeOpener({ ...env, PAYLOAD_KEK: undefined })(sealed, 'here'),
    ).rejects.toThrow(/here: private payload under dk-[0-9a-f]+: PAYLOAD_KEK is not set/);
  });
});
