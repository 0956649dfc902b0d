import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeys } from '../../src/anchor/log/note';
import { type LogProof, verifyLogChain, verifyLogProof, WirestreamClient } from '../../src/client';
import { ROOT } from '../../tools/lib/wrangler-local.mjs';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript } from '../support/run-script';

/**
 * Rotating the log key of a running log-mode deployment (README, Rotating the
 * log key), under real `wrangler dev` and the Hedera stand-in: a topic
 * checkpoints 10 Wires under key A, `npm run log-key -- --rotate` makes key B
 * (same name) and the LOG_VERIFIER_KEYS line, the deployment restarts with
 * them and checkpoints 5 more under B. Rebuild, proofs and the chain check
 * hold across the rotation; with A left out, A's checkpoints are reported;
 * a malformed LOG_VERIFIER_KEYS is reported where it matters, never a 500.
 */
const NAME = 'wirestream.rotation-test';
const SENDER = 'agent:log-rotation';
const REBUILD = path.join(ROOT, 'tools/rebuild.mjs');
const LOG_KEY = path.join(ROOT, 'tools/log-key.mjs');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const project = `rot${Date.now().toString(36)}`;
const streamId = `project:${project}`;
const topic = `project.${project}`;

let server: DevServer;
let client: WirestreamClient;
let scratch: string;
let A: { signer: string; verifier: string };
let B: { signer: string; verifier: string };
let topicId = '';
const ids = Array.from({ length: 15 }, (_, i) => `wire_rot_${project}_${i}`);

async function api(pathname: string, init: RequestInit = {}) {
  return fetch(`${server.url}${pathname}`, {
    ...init,
    headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
  });
}

type AnchoringAnswer = {
  hcs_topic_id: string;
  archive: { archived_size: number };
  log_keys: { verifier_keys: string[]; problem: string | null };
};
const anchoring = async () =>
  (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as AnchoringAnswer;

/** Appends Wires `from`..`to`-1, then waits until the last one is checkpointed on HCS and archived. */
async function appendAndCheckpoint(from: number, to: number): Promise<LogProof> {
  for (let i = from; i < to; i++) {
    await client.append(streamId, {
      wire_id: ids[i],
      type: 'review.concern',
      payload: { concern: `n${i}` },
    });
  }
  const last = (await client.proof(ids[to - 1] as string, {
    streamId,
    waitMs: 60_000,
  })) as unknown as LogProof;
  const deadline = Date.now() + 30_000;
  while ((await anchoring()).archive.archived_size < to && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect((await anchoring()).archive.archived_size).toBe(to);
  return last;
}

const proofOf = async (i: number) =>
  (await client.proof(ids[i] as string, { streamId })) as unknown as LogProof;
const rebuild = () =>
  runScript(REBUILD, ['--url', server.url], {
    ...process.env,
    WIRESTREAM_ADMIN_TOKEN: server.adminToken,
  });
const mirror = () => server.standin.url;
const chain = (pinned: string[] = []) =>
  verifyLogChain({ mirrorUrl: mirror(), verifierKeys: pinned, api: (p) => client.get(p) }, topicId);

beforeAll(async () => {
  A = await generateKeys(NAME);
  server = await startDevServer({ LOG_SIGNER_KEY: A.signer, LOG_VERIFIER_KEYS: '' });
  scratch = mkdtempSync(path.join(tmpdir(), 'wirestream-rotation-'));
  const token = (await tokenFor(server, SENDER)) ?? '';
  client = new WirestreamClient({ baseUrl: server.url, token, sender: SENDER });
  const set = await api(`/v1/topics/${topic}/anchoring`, {
    method: 'PUT',
    body: JSON.stringify({ mode: 'log', every: 5, ms: 60_000 }),
  });
  expect(set.status).toBe(200);
  const started = Date.now();
  await appendAndCheckpoint(0, 10);
  topicId = (await anchoring()).hcs_topic_id;

  // The rotation, as README says: a new key of the same name, A's verifier key listed.
  const rotated = await runScript(LOG_KEY, ['--rotate', '--json', '--vars', '/nonexistent'], {
    ...process.env,
    LOG_SIGNER_KEY: A.signer,
  });
  expect(rotated.code, rotated.stderr).toBe(0);
  const keys = JSON.parse(rotated.stdout) as { signer: string; verifier: string };
  const listed = (JSON.parse(rotated.stdout) as { verifier_keys: string }).verifier_keys;
  expect(listed).toBe(A.verifier);
  B = keys;
  await server.restart({ LOG_SIGNER_KEY: B.signer, LOG_VERIFIER_KEYS: listed });
  await appendAndCheckpoint(10, 15);
  console.log(
    `log-key-rotation: 15 Wires checkpointed across a rotation in ${Date.now() - started} ms`,
  );
}, 240_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('rotating the log key', { timeout: 120_000 }, () => {
  it('keeps the name, and the API serves both keys, current first', async () => {
    expect(B.verifier.split('+')[0]).toBe(NAME);
    expect(B.verifier).not.toBe(A.verifier);
    expect((await anchoring()).log_keys).toEqual({
      verifier_keys: [B.verifier, A.verifier],
      problem: null,
    });
    const [early, late] = [await proofOf(2), await proofOf(12)];
    for (const p of [early, late]) {
      expect(p.verifier_key).toBe(B.verifier);
      expect(p.verifier_keys).toEqual([B.verifier, A.verifier]);
      expect(p.log_origin).toBe(`${NAME}/${topicId}`);
    }
    // Each checkpoint is signed by its own era's key: the note names it by key id.
    expect(early.checkpoint).toContain(`— ${NAME} `);
    expect(early.tree_size).toBe(5);
    expect(late.tree_size).toBe(15);
  });

  it('proves an A-era Wire and a B-era Wire with the SDK and `wirestream verify --proof`', async () => {
    for (const i of [2, 7, 12]) {
      const proof = await proofOf(i);
      const checked = await verifyLogProof({ mirrorUrl: mirror() }, proof);
      expect([i, checked.ok, checked.problem]).toEqual([i, true, undefined]);
      const signer = i < 10 ? A.verifier : B.verifier;
      expect(checked.checks.find((c) => c.check === 'signature')?.detail).toBe(
        `signed by ${signer}`,
      );
      const file = path.join(scratch, `proof-${i}.json`);
      writeFileSync(file, JSON.stringify(proof));
      const env = { ...process.env, WIRESTREAM_URL: server.url };
      const pinned = ['verify', '--proof', file, '--key', B.verifier, '--key', A.verifier];
      const run = await runScript(BIN, [...pinned, '--mirror', mirror()], env);
      expect([i, run.code, run.stdout]).toEqual([i, 0, expect.stringMatching(/^ok: Wire /)]);
    }
    // Pinned to B alone, an A-era proof does not verify, and says which key signed it.
    const file = path.join(scratch, 'proof-2.json');
    const onlyB = await runScript(
      BIN,
      ['verify', '--proof', file, '--key', B.verifier, '--mirror', mirror()],
      { ...process.env, WIRESTREAM_URL: server.url },
    );
    expect([onlyB.code, onlyB.stdout]).toEqual([
      1,
      expect.stringContaining(
        `FAILED signature: no signature by ${B.verifier.split('+').slice(0, 2).join('+')}`,
      ),
    ]);
  });

  it('checks the chain across the rotation: B’s first checkpoint commits to A’s last', async () => {
    for (const pinned of [[], [B.verifier, A.verifier]]) {
      const result = await chain(pinned);
      expect(result).toMatchObject({
        ok: true,
        findings: [],
        checkpoints: 3,
        consistency_checked: 2,
        last_tree_size: 15,
        log_origin: `${NAME}/${topicId}`,
        key_source: pinned.length > 0 ? 'pinned' : 'api',
      });
    }
    const onlyB = await chain([B.verifier]);
    expect(onlyB.ok).toBe(false);
    // A's two checkpoints are unsigned as far as B alone knows, so B's first names a
    // previous checkpoint none of the verified ones is.
    expect(onlyB.findings.map((f) => [f.check, f.tree_size])).toEqual([
      ['signature', 5],
      ['signature', 10],
      ['prev', 15],
    ]);
  });

  it('rebuilds exactly from the archive, verifying both keys’ checkpoints', async () => {
    const run = await rebuild();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('REFUSED');
    expect(run.stdout).toContain(`read ${topicId}: 3 messages, 15 Wires`);
    expect(run.stdout).toMatch(/done: 15 Wires in 1 streams/);
    const page = (await (await api(`/v1/streams/${streamId}/wires?limit=100`)).json()) as {
      wires: { wire_id: string; payload: { concern: string } }[];
    };
    expect(page.wires.map((w) => [w.wire_id, w.payload.concern])).toEqual(
      ids.map((id, i) => [id, `n${i}`]),
    );
  });

  it('reports A’s checkpoints, not projects them silently, once A is no longer listed', async () => {
    const other = await generateKeys(NAME);
    await server.restart({ LOG_VERIFIER_KEYS: other.verifier });
    expect((await anchoring()).log_keys).toEqual({
      verifier_keys: [B.verifier, other.verifier],
      problem: null,
    });
    const run = await rebuild();
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const aId = A.verifier.split('+')[1];
    const refused = run.stdout.split('\n').filter((l) => l.includes('REFUSED a checkpoint'));
    expect(refused).toEqual(
      [1, 2].map((seq) =>
        expect.stringContaining(
          `REFUSED a checkpoint of ${topicId} (checkpoint at HCS seq ${seq}): checkpoint refused: signed by the key ${NAME}+${aId}, which is neither LOG_SIGNER_KEY's nor in LOG_VERIFIER_KEYS`,
        ),
      ),
    );
    // B's checkpoint (15 leaves) still vouches for every leaf under its root, A-era ones too:
    // those are projected on its word, the two checkpoints A signed are reported.
    expect(run.stdout).toMatch(
      /done: 15 Wires in 1 streams .*; REFUSED 2 \(archived entries or checkpoints/,
    );
    const proof = await proofOf(2);
    const checked = await verifyLogProof({ mirrorUrl: mirror() }, proof);
    expect(checked.problem?.check).toBe('signature');
    const result = await chain();
    expect(result.findings.map((f) => [f.check, f.sequence_number])).toEqual([
      ['signature', 1],
      ['signature', 2],
      ['prev', 3],
    ]);
  });

  it('reports a malformed LOG_VERIFIER_KEYS where it matters, and signing goes on', async () => {
    await server.restart({ LOG_VERIFIER_KEYS: `${A.verifier}, not-a-key` });
    const view = await anchoring();
    const why = 'LOG_VERIFIER_KEYS entry 2 ("not-a-key") is not a verifier key';
    expect(view.log_keys.verifier_keys).toEqual([B.verifier]);
    expect(view.log_keys.problem).toContain(why);
    const set = await api(`/v1/topics/${topic}/anchoring`, {
      method: 'PUT',
      body: JSON.stringify({ mode: 'log', every: 5, ms: 60_000 }),
    });
    expect(set.status).toBe(422);
    expect(((await set.json()) as { detail: string }).detail).toContain(why);
    const run = await rebuild();
    expect([run.code, run.stdout]).toEqual([1, expect.stringContaining(`rebuild failed: ${why}`)]);
    // The current key still proves and signs: a B-era Wire's proof verifies.
    const checked = await verifyLogProof({ mirrorUrl: mirror() }, await proofOf(12));
    expect(checked.ok).toBe(true);
  });
});
