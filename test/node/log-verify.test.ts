// Issue 31's acceptance: Wires from many streams in a log-mode deployment
// (real `wrangler dev` and the Hedera stand-in) are verified from their
// proof JSON and mirror REST alone, by an independent verifier written here
// with node:crypto (independent-log-verifier.ts) and by the SDK and the CLI;
// then tampered proofs, a tampered mirror and forged checkpoints on HCS must
// each be caught, named, and make `wirestream verify` exit 1.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LogProof, verifyLogChain, verifyLogProof, WirestreamClient } from '../../src/client';
import { devServerForFile } from '../support/dev-server';
import { withFixedAnswer } from '../support/fixed-answer-server';
import { runScript } from '../support/run-script';
import { submitToStandin, whileTampered } from '../support/standin-submit';
import { hcs27Envelope, readHcs27 } from './independent-hcs27';
import {
  allMessages,
  b64,
  checkChain,
  checkProof,
  type MirrorMessage,
  newLogKey,
  prevLineOf,
  readVerifierKey,
  textOf,
} from './independent-log-verifier';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const SENDER = 'agent:log-verifier';
const KEY = newLogKey('wirestream.logverify.test');
const dev = devServerForFile(SENDER, 120_000, {
  ANCHOR_MODE: 'log',
  LOG_SIGNER_KEY: KEY.signer,
  LOG_CHECKPOINT_EVERY: '10',
  LOG_CHECKPOINT_MS: '1000',
});
const STREAMS = 12;
const ROUNDS = 4;
const run = Date.now().toString(36);

let client: WirestreamClient;
let topicId = '';
let proofs: LogProof[] = [];
const mirror = () => dev.server.standin.url;
const consistency = (from: number, to: number) =>
  client.get<{ consistency_path: string[] }>(
    `/v1/topics/${topicId}/log/consistency?from=${from}&to=${to}`,
  );

/** What the independent verifier finds wrong with one proof, or with the topic's checkpoints. */
const independentProof = (p: LogProof) => checkProof(mirror(), KEY.verifier, p);
const independentChain = () =>
  checkChain(
    mirror(),
    KEY.verifier,
    topicId,
    async (from, to) => (await consistency(from, to)).consistency_path,
  );

function cli(args: string[]) {
  const env = { ...process.env, WIRESTREAM_URL: dev.server.url, WIRESTREAM_TOKEN: dev.token ?? '' };
  return runScript(BIN, [...args, '--mirror', mirror()], env);
}

beforeAll(async () => {
  client = new WirestreamClient({
    baseUrl: dev.server.url,
    token: dev.token ?? '',
    sender: SENDER,
  });
  const receipts: { wire_id: string; stream_id: string }[] = [];
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    const sent = await Promise.all(
      Array.from({ length: STREAMS }, (_, i) =>
        client.append(`lv:s${i}-${run}`, {
          type: 'review.concern',
          payload: { concern: `round ${round}` },
          correlation_id: `project:lv-${run}`,
        }),
      ),
    );
    receipts.push(...sent.map((s) => s.receipt));
  }
  proofs = [];
  for (const r of receipts) {
    proofs.push(
      (await client.proof(r.wire_id, {
        streamId: r.stream_id,
        waitMs: 60_000,
      })) as unknown as LogProof,
    );
  }
  console.log(
    `log-verify: ${receipts.length} Wires from ${STREAMS} streams proved after ${Date.now() - started} ms`,
  );
  topicId = proofs[0]?.checkpoint_anchor.hcs_topic_id ?? '';
}, 120_000);

describe('log mode, verified by outsiders', { timeout: 120_000 }, () => {
  it('an independent verifier checks every Wire and the checkpoint chain from proof JSON and mirror REST', async () => {
    expect(proofs.map((p) => p.mode)).toEqual(Array(STREAMS * ROUNDS).fill('log'));
    expect(new Set(proofs.map((p) => p.stream_id)).size).toBe(STREAMS);
    expect(new Set(proofs.map((p) => p.checkpoint_anchor.hcs_topic_id))).toEqual(
      new Set([topicId]),
    );
    expect(proofs.map((p) => p.leaf_index).sort((a, b) => a - b)).toEqual([
      ...Array(STREAMS * ROUNDS).keys(),
    ]);
    expect(new Set(proofs.map((p) => p.verifier_key))).toEqual(new Set([KEY.verifier]));
    for (const p of proofs) expect([p.wire_id, await independentProof(p)]).toEqual([p.wire_id, []]);
    const chain = await independentChain();
    expect(chain.found).toEqual([]);
    expect(chain.checkpoints).toBeGreaterThanOrEqual((STREAMS * ROUNDS) / 10);
  });

  it('the SDK and `wirestream verify` agree, and the anchors listing names log entries', async () => {
    for (const p of proofs) {
      const checked = await verifyLogProof({ mirrorUrl: mirror(), verifierKey: KEY.verifier }, p);
      expect([p.wire_id, checked.problem]).toEqual([p.wire_id, undefined]);
    }
    const chain = await verifyLogChain(
      { mirrorUrl: mirror(), verifierKey: KEY.verifier, api: (p) => client.get(p) },
      topicId,
    );
    expect(chain).toMatchObject({ ok: true, findings: [], key_source: 'pinned' });
    expect(chain.consistency_checked).toBe(chain.checkpoints - 1);
    // The client's envelope-mode check names the one to use instead of failing on a field.
    await expect(client.checkProof(proofs[0] as never)).rejects.toThrow(/use checkLogProof/);
    expect((await client.checkLogProof(proofs[0] as LogProof, { mirrorUrl: mirror() })).ok).toBe(
      true,
    );

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'lv-')), 'proof.json');
    writeFileSync(file, JSON.stringify(proofs[7]));
    const fromFile = await cli(['verify', '--proof', file, '--key', KEY.verifier]);
    expect([fromFile.code, fromFile.stderr]).toEqual([0, '']);
    expect(fromFile.stdout).toContain(
      `ok: Wire ${proofs[7]?.wire_id} is leaf ${proofs[7]?.leaf_index}`,
    );
    const byId = await cli(['verify', '--proof', proofs[3]?.wire_id ?? '', '--json']);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout)).toMatchObject({ ok: true, key_source: 'proof' });
    const log = await cli(['verify', topicId, '--log', '--key', KEY.verifier, '--json']);
    expect(log.code).toBe(0);
    expect(JSON.parse(log.stdout)).toMatchObject({ ok: true, checkpoints: chain.checkpoints });

    const listing = await client.get<{ wires: { log?: { leaf_index: number } }[] }>(
      `/v1/topics/${topicId}/anchors?limit=1`,
    );
    // A page ends after a whole checkpoint: every Wire of the first one, as leaves.
    const first = proofs.find((p) => p.checkpoint_anchor.hcs_sequence_number === 1);
    expect(listing.wires.map((w) => w.log?.leaf_index)).toEqual([
      ...Array(first?.tree_size).keys(),
    ]);
    const audit = await runScript(path.join(ROOT, 'tools/verify.mjs'), [
      topicId,
      '--mirror',
      mirror(),
      '--api',
      dev.server.url,
      '--token',
      dev.token ?? '',
      '--json',
    ]);
    expect([audit.code, JSON.parse(audit.stdout).findings]).toEqual([0, []]);
    expect(JSON.parse(audit.stdout).anchors_checked).toBe(STREAMS * ROUNDS);
  });

  it('catches a reordered leaf and a forged checkpoint signature in the proof JSON', async () => {
    const [a, b] = proofs.filter(
      (p) =>
        p.checkpoint_anchor.hcs_sequence_number ===
        proofs[0]?.checkpoint_anchor.hcs_sequence_number,
    ) as [LogProof, LogProof];
    const swapped = { ...a, leaf_index: b.leaf_index };
    const moved = {
      ...a,
      leaf: b.leaf,
      wire_id: b.wire_id,
      stream_id: b.stream_id,
      stream_seq: b.stream_seq,
    };
    const sig = a.checkpoint.slice(a.checkpoint.lastIndexOf(' ') + 1, -1);
    const flipped = b64(sig);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    const forged = { ...a, checkpoint: a.checkpoint.replace(sig, flipped.toString('base64')) };
    const cases: [string, LogProof, string, string[]][] = [
      ['wrong leaf_index', swapped, 'inclusion', ['inclusion']],
      ['another Wire at this leaf', moved, 'inclusion', ['inclusion']],
      ['forged signature', forged, 'signature', ['on-hcs', 'signature']],
    ];
    for (const [what, proof, first, independent] of cases) {
      const sdk = await verifyLogProof({ mirrorUrl: mirror(), verifierKey: KEY.verifier }, proof);
      expect([what, sdk.ok, sdk.problem?.check]).toEqual([what, false, first]);
      expect([what, await independentProof(proof)]).toEqual([what, independent]);
    }
    // A checkpoint re-signed by another key, named in the proof: it is not on HCS.
    const other = newLogKey('wirestream.logverify.test');
    const text = a.checkpoint.slice(0, a.checkpoint.lastIndexOf('\n\n') + 1);
    const resigned = { ...a, checkpoint: other.signNote(text), verifier_key: other.verifier };
    const unpinned = await verifyLogProof({ mirrorUrl: mirror() }, resigned);
    expect(unpinned.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['on-hcs']);
    const pinned = await verifyLogProof(
      { mirrorUrl: mirror(), verifierKey: KEY.verifier },
      resigned,
    );
    expect(pinned.problem?.check).toBe('key');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'lv-')), 'forged.json');
    writeFileSync(file, JSON.stringify(forged));
    const refused = await cli(['verify', '--proof', file]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /^FAILED signature: the signature of wirestream\.logverify\.test does not verify/,
    );
    // A server that answers a (valid) proof of another Wire than the one asked for.
    const asked = await withFixedAnswer(a, (url) =>
      runScript(BIN, ['verify', '--proof', b.wire_id, '--mirror', mirror()], {
        ...process.env,
        WIRESTREAM_URL: url,
        WIRESTREAM_TOKEN: dev.token ?? '',
      }),
    );
    expect([asked.code, asked.stdout.split('\n')[0]]).toEqual([
      1,
      `FAILED proof: the API answered a proof of Wire "${a.wire_id}", not of ${b.wire_id}`,
    ]);
  });

  it('catches a mirror serving a wrong running hash for a checkpoint', async () => {
    const seq = proofs[0]?.checkpoint_anchor.hcs_sequence_number ?? 0;
    await whileTampered(mirror(), topicId, seq, async () => {
      const sdk = await verifyLogProof({ mirrorUrl: mirror() }, proofs[0]);
      expect(sdk.problem?.check).toBe('running-hash');
      expect(await independentProof(proofs[0] as LogProof)).toEqual(['running-hash']);
      expect((await independentChain()).found).toContain(`running-hash #${seq}`);
      const log = await cli(['verify', topicId, '--log', '--json']);
      expect(log.code).toBe(1);
      expect(JSON.parse(log.stdout).findings).toContainEqual(
        expect.objectContaining({ check: 'running-hash', sequence_number: seq }),
      );
    });
  });

  it('catches checkpoints on HCS that are forged, do not extend the one before, or whose HCS-27 metadata is not their note', async () => {
    const messages = await allMessages(mirror(), topicId);
    const lastMessage = readHcs27(textOf(messages.at(-1) as MirrorMessage));
    const last = lastMessage?.note ?? '';
    const body = last.slice(0, last.lastIndexOf('\n\n') + 1);
    const [origin = '', size = '', root = ''] = body.split('\n');
    const lastCommit = { size: Number(size), root: b64(root) };
    const forkCommit = { size: Number(size), root: Buffer.alloc(32, 9) };
    // The log's key id, but a signature made by nobody.
    const blob = Buffer.concat([readVerifierKey(KEY.verifier).hash, Buffer.alloc(64, 7)]);
    const badSig = `${body}\n— wirestream.logverify.test ${blob.toString('base64')}\n`;
    const fork = KEY.signNote(
      `${origin}\n${size}\n${Buffer.alloc(32, 9).toString('base64')}\n${prevLineOf(last)}\n`,
    );
    const brokenPrev = KEY.signNote(
      `${origin}\n${size}\n${root}\nprev ${Buffer.alloc(32).toString('base64')}\n`,
    );
    // A checkpoint the log's key signed, extending the one before, but HCS-27 metadata with another root.
    const misstated = KEY.signNote(`${origin}\n${size}\n${root}\n${prevLineOf(brokenPrev)}\n`);
    await submitToStandin(mirror(), topicId, [
      hcs27Envelope(badSig, lastMessage?.prev ?? null),
      hcs27Envelope(fork, lastCommit),
      hcs27Envelope(brokenPrev, forkCommit),
      hcs27Envelope(misstated, lastCommit, Buffer.alloc(32, 5)),
    ]);
    const n = messages.length;

    const independent = await independentChain();
    expect(independent.found).toEqual([
      `signature #${n + 1}`,
      `consistency #${n + 2}`,
      `prev #${n + 3}`,
      `consistency #${n + 3}`,
      `metadata #${n + 4}`,
    ]);
    const sdk = await verifyLogChain(
      { mirrorUrl: mirror(), verifierKey: KEY.verifier, api: (p) => client.get(p) },
      topicId,
    );
    expect(sdk.findings.map((f) => `${f.check} #${f.sequence_number}`)).toEqual(independent.found);
    const log = await cli(['verify', topicId, '--log']);
    expect(log.code).toBe(1);
    expect(log.stdout).toContain(
      `✗ signature at #${n + 1}: the signature of wirestream.logverify.test does not verify`,
    );
    expect(log.stdout).toContain(
      `✗ prev at #${n + 3}: does not name the checkpoint before it (#${n + 2})`,
    );
    // A proof naming that message: its note is signed and includes the leaf, its metadata is not it.
    const underLast = proofs.find((p) => p.checkpoint === last) as LogProof;
    const onMirror = (await allMessages(mirror(), topicId))[n + 3] as MirrorMessage;
    const misstatedProof = {
      ...underLast,
      checkpoint: misstated,
      checkpoint_anchor: {
        ...underLast.checkpoint_anchor,
        hcs_sequence_number: n + 4,
        consensus_timestamp: onMirror.consensus_timestamp,
        running_hash: onMirror.running_hash,
      },
    };
    const sdkProof = await verifyLogProof(
      { mirrorUrl: mirror(), verifierKey: KEY.verifier },
      misstatedProof,
    );
    expect(sdkProof.problem).toEqual({
      check: 'on-hcs',
      reason: expect.stringMatching(
        /^message .*#\d+: HCS-27 message: metadata\.root\.rootHashB64u is /,
      ),
    });
    expect(await independentProof(misstatedProof)).toEqual(['metadata']);
    expect(log.stdout).toContain(
      `✗ metadata at #${n + 4}: HCS-27 message: metadata.root.rootHashB64u is ${Buffer.alloc(32, 5).toString('base64url')}, the signed note says ${b64(root).toString('base64url')}`,
    );
  });
});
