import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogProof } from '../../src/anchor/log/check-proof';
import { readCheckpointMessage } from '../../src/anchor/log/hcs27';
import { leafHash, verifyConsistency, verifyInclusion } from '../../src/anchor/log/merkle';
import { openNote, parseCheckpoint, parseVerifierKey } from '../../src/anchor/log/note';
import { canonicalJson } from '../../src/protocol';
import { fromBase64, toBase64 } from '../../src/protocol/base64';
import { topicStub } from '../../src/topic/stub';
import { api, type MirrorMessage, mirrorMessages, untilAnchored } from './helpers/anchoring';
import { post, problemOf, uniqueStream, wire11 } from './helpers/wires';

/**
 * Log mode (issue 31) against the stand-in network through the real SDK: the
 * topic is put in log mode with the TopicObject's own setting (the deployment
 * stays in envelope mode for every other test), 25 Wires go in with a
 * checkpoint every 10, and what HCS holds is checked the way an auditor would.
 */
const EVERY = 10;
const WIRES = 25;
// Long enough for the 10 Wires of a full checkpoint to arrive on a loaded machine.
const MS = 4000;
const UTF8 = new TextEncoder();

const streamId = uniqueStream('project');
const topic = `project.${streamId.slice('project:'.length)}`;
const bodies: ReturnType<typeof wire11>[] = [];
let topicId = '';
let notes: string[] = [];

/** The signed note an HCS-27 checkpoint message carries, once its metadata agrees with it. */
const noteOf = (m: MirrorMessage) => {
  const read = readCheckpointMessage(new TextDecoder().decode(fromBase64(m.message)));
  if (!read?.ok) throw new Error(`not a checkpoint message: ${read?.reason}`);
  return read.note;
};
const bytes = (b64: string) => fromBase64(b64);
const sha256 = async (text: string) =>
  toBase64(new Uint8Array(await crypto.subtle.digest('SHA-256', UTF8.encode(text))));

async function proofOf(wireId: string): Promise<LogProof> {
  const res = await api(`/v1/wires/${wireId}/proof`);
  expect(res.status).toBe(200);
  return (await res.json()) as LogProof;
}

async function checkpointsOnMirror() {
  const verifier = await parseVerifierKey((await proofOf(bodies[0]?.wire_id ?? '')).verifier_key);
  if (!verifier) throw new Error('the proof names no valid verifier key');
  return Promise.all(
    notes.map(async (note) => {
      const opened = await openNote(note, verifier);
      if (!opened.ok) throw new Error(opened.reason);
      const checkpoint = parseCheckpoint(opened.text);
      if (!checkpoint) throw new Error(`not a checkpoint: ${opened.text}`);
      return checkpoint;
    }),
  );
}

describe('log mode', () => {
  beforeAll(async () => {
    const set = await topicStub(env, topic).setAnchoring({ mode: 'log', every: EVERY, ms: MS });
    expect(set).toEqual({ mode: 'log', every: EVERY, ms: MS });
    const started = Date.now();
    for (let i = 0; i < WIRES; i++) {
      const body = wire11(streamId, { correlation_id: null });
      bodies.push(body);
      expect((await post(streamId, body)).status).toBe(201);
    }
    const posted = Date.now();
    const wires = await untilAnchored(streamId, [topic], 30_000);
    console.log(
      `log mode: ${WIRES} Wires posted in ${posted - started} ms, all anchored after ${Date.now() - started} ms`,
    );
    expect(wires.map((w) => w.anchor.status)).toEqual(Array(WIRES).fill('anchored'));
    topicId = wires[0]?.anchor.hcs_topic_id ?? '';
    notes = (await mirrorMessages(topicId)).map(noteOf);
  }, 60_000);

  it('submits one signed checkpoint per 10 Wires and one for the rest, each chained to the one before', async () => {
    expect(notes).toHaveLength(3);
    const checkpoints = await checkpointsOnMirror();
    expect(checkpoints.map((c) => c.size)).toEqual([10, 20, 25]);
    expect(checkpoints.map((c) => c.origin)).toEqual(Array(3).fill(`wirestream.test/${topicId}`));
    expect(checkpoints[0]?.extensions).toEqual([]);
    expect(checkpoints[1]?.extensions).toEqual([`prev ${await sha256(notes[0] ?? '')}`]);
    expect(checkpoints[2]?.extensions).toEqual([`prev ${await sha256(notes[1] ?? '')}`]);
    // On HCS each is an HCS-27 register message; its metadata names the checkpoint before.
    const raw = (await mirrorMessages(topicId)).map(
      (m) =>
        JSON.parse(new TextDecoder().decode(fromBase64(m.message))) as {
          p: string;
          op: string;
          metadata: { type: string; log: { merkle: string }; prev?: unknown };
        },
    );
    expect(raw.map((m) => [m.p, m.op, m.metadata.type, m.metadata.log.merkle])).toEqual(
      Array(3).fill(['hcs-27', 'register', 'ans-checkpoint-v1', 'rfc9162']),
    );
    const b64u = (root: Uint8Array) =>
      toBase64(root).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(raw.map((m) => m.metadata.prev ?? null)).toEqual([
      null,
      ...checkpoints.slice(0, 2).map((c) => ({
        treeSize: String(c.size),
        rootHashB64u: b64u(c.root),
      })),
    ]);
  });

  it("proves every Wire's inclusion against the root of the checkpoint on the mirror", async () => {
    const checkpoints = await checkpointsOnMirror();
    for (const [i, body] of bodies.entries()) {
      const proof = await proofOf(body.wire_id);
      expect(proof).toMatchObject({ mode: 'log', leaf_index: i, wire_id: body.wire_id });
      // The leaf is the canonical JSON of the anchored envelope.
      const leaf = JSON.parse(proof.leaf) as Record<string, unknown>;
      expect(leaf).toMatchObject({ wire_id: body.wire_id, stream_seq: i + 1 });
      expect(canonicalJson(leaf)).toBe(proof.leaf);
      const seq = proof.checkpoint_anchor.hcs_sequence_number;
      expect(proof.checkpoint).toBe(notes[seq - 1]);
      expect(proof.checkpoint_anchor.mirror_url).toMatch(
        new RegExp(`/api/v1/topics/${topicId}/messages/${seq}$`),
      );
      const root = checkpoints[seq - 1]?.root ?? new Uint8Array();
      expect(proof.tree_size).toBe(checkpoints[seq - 1]?.size);
      const hash = await leafHash(UTF8.encode(proof.leaf));
      const path = proof.inclusion_path.map(bytes);
      expect(await verifyInclusion(i, proof.tree_size, hash, path, root)).toBe(true);
    }
  });

  it('gives every Wire the anchor of its checkpoint', async () => {
    const wires = await untilAnchored(streamId, [topic]);
    const seqs = wires.map((w) => w.anchor.hcs_sequence_number);
    expect(seqs).toEqual([...Array(10).fill(1), ...Array(10).fill(2), ...Array(5).fill(3)]);
  });

  it('proves the second checkpoint consistent with the first', async () => {
    const checkpoints = await checkpointsOnMirror();
    const res = await api(`/v1/topics/${topicId}/log/consistency?from=10&to=20`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      from: { tree_size: number; checkpoint: string };
      to: { tree_size: number; checkpoint: string };
      consistency_path: string[];
    };
    expect([body.from.checkpoint, body.to.checkpoint]).toEqual([notes[0], notes[1]]);
    const [older, newer] = checkpoints;
    const path = body.consistency_path.map(bytes);
    const ok = await verifyConsistency(
      10,
      20,
      older?.root ?? bytes(''),
      newer?.root ?? bytes(''),
      path,
    );
    expect(ok).toBe(true);
    // A proof for the wrong pair does not verify.
    const wrong = await verifyConsistency(
      10,
      25,
      older?.root ?? bytes(''),
      checkpoints[2]?.root ?? bytes(''),
      path,
    );
    expect(wrong).toBe(false);
  });

  it("has the listener take the checkpoints as the topic's own, not as rejected Wires", async () => {
    const heard = await topicStub(env, topic).listen();
    expect(heard).toMatchObject({ read: 3, alerts: 0, rejected: 0, ingested: 0 });
  });

  it('refuses bad consistency and proof requests, naming the parameter', async () => {
    const cases: [string, number, string | null][] = [
      ['from=20&to=10', 400, 'from'],
      ['from=5&to=20', 400, 'from'],
      ['from=10&to=21', 400, 'to'],
      ['from=0&to=10', 400, 'from'],
      ['to=10', 400, 'from'],
      ['from=10', 400, 'to'],
    ];
    for (const [query, status, parameter] of cases) {
      const res = await api(`/v1/topics/${topicId}/log/consistency?${query}`);
      expect([query, res.status]).toEqual([query, status]);
      const problem = await problemOf(res);
      expect([query, problem.errors?.map((e) => e.path)]).toEqual([query, [parameter]]);
    }
    const unknownTopic = await api('/v1/topics/0.0.999999/log/consistency?from=1&to=1');
    expect(unknownTopic.status).toBe(404);
    expect((await problemOf(unknownTopic)).detail).toContain('0.0.999999');
    const unknownWire = await api('/v1/wires/wire_unknown_log_mode_1/proof');
    expect(unknownWire.status).toBe(404);
    expect((await problemOf(unknownWire)).detail).toContain('wire_unknown_log_mode_1');
  });
});
