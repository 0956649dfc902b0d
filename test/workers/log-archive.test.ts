import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { hederaConfig } from '../../src/anchor/config';
import { archiveKey } from '../../src/anchor/log/archive';
import { checkpointMessage, noteOfMessage } from '../../src/anchor/log/hcs27';
import { edgeRoot, extendEdge, leafHash, sha256 } from '../../src/anchor/log/merkle';
import {
  checkpointText,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  signNote,
} from '../../src/anchor/log/note';
import { decodeBundle, decodeHashes, encodeBundle, encodeHashes } from '../../src/anchor/log/tiles';
import {
  archiveCheck,
  expandCheckpoint,
  type LogCursor,
} from '../../src/projection/archive-verify';
import { mirrorSource } from '../../src/projection/mirror-source';
import { fromBase64, toBase64 } from '../../src/protocol/base64';
import { api, appendInLogMode, mirrorMessages, untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { resetReadModels } from './helpers/projection-fixtures';
import {
  comparableDump,
  type RebuildLine,
  runRebuild,
  untilQuiet,
} from './helpers/projection-live';
import { problemOf, uniqueStream, type wire11 } from './helpers/wires';

/**
 * Log mode's R2 archive (issue 31) against the stand-in network and a real
 * R2 binding: a topic put in log mode over the API with a checkpoint per 10
 * Wires, its tlog-tiles read back over the API, and rebuilds that verify
 * every archived entry against the signed checkpoints on HCS — including
 * entries an attacker with write access to the bucket altered.
 */
const EVERY = 10;
const WIRES = 30;
const UTF8 = new TextEncoder();
const streamId = uniqueStream('project');
const topic = `project.${streamId.slice('project:'.length)}`;
const bodies: ReturnType<typeof wire11>[] = [];
let topicId = '';
/** The checkpoints' HCS messages (HCS-27), and the signed notes they carry. */
let messages: string[] = [];
let notes: string[] = [];

async function anchoringOf(name: string) {
  const res = await api(`/v1/topics/${name}/anchoring`);
  return (await res.json()) as { archive: { archived_size: number; last_error: string | null } };
}

async function untilArchived(size: number, deadlineMs = 20_000) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const { archive } = await anchoringOf(topic);
    if (archive.archived_size >= size) return archive;
    if (Date.now() > until) throw new Error(`archive at ${JSON.stringify(archive)}, not ${size}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function tile(path: string): Promise<Response> {
  return api(`/v1/topics/${topicId}/log/${path}`);
}

async function bytesOf(res: Response) {
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** Every R2 object under the topic's entry bundles (full and partial). */
async function bundles(): Promise<string[]> {
  const listed = await env.LOG_ARCHIVE?.list({ prefix: archiveKey(topicId, 'tile/entries/') });
  return (listed?.objects ?? []).map((o) => o.key);
}

/** Rewrites leaf `leaf` in every archived bundle that holds it, as an attacker with bucket access would. */
async function alterEntry(leaf: number, change: (entry: Record<string, unknown>) => void) {
  for (const key of await bundles()) {
    const object = await env.LOG_ARCHIVE?.get(key);
    const entries = decodeBundle(
      new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0)),
    );
    const entry = entries?.[leaf];
    if (!entries || !entry) continue;
    const json = JSON.parse(new TextDecoder().decode(entry)) as Record<string, unknown>;
    change(json);
    entries[leaf] = UTF8.encode(JSON.stringify(json));
    await env.LOG_ARCHIVE?.put(key, encodeBundle(entries));
  }
  return entryOf(leaf);
}

/** The altered leaf as the bundle now holds it (the newest partial). */
async function entryOf(leaf: number): Promise<Uint8Array> {
  const entries = decodeBundle(await bytesOf(await tile(`tile/entries/000.p/${WIRES}`)));
  return entries?.[leaf] ?? new Uint8Array();
}

const refusals = (lines: RebuildLine[]) => lines.filter((l) => l.phase === 'refused');

async function streamRows() {
  const rows = await env.DB.prepare(
    'SELECT wire_id, payload FROM wire_events WHERE stream_id = ?1 ORDER BY stream_seq',
  )
    .bind(streamId)
    .all<{ wire_id: string; payload: string }>();
  return rows.results;
}

describe('the log archive in R2', () => {
  beforeAll(async () => {
    bodies.push(...(await appendInLogMode(topic, streamId, EVERY, WIRES, 'c')));
    const started = Date.now();
    const wires = await untilAnchored(streamId, [topic], 30_000);
    expect(wires.map((w) => w.anchor.status)).toEqual(Array(WIRES).fill('anchored'));
    topicId = wires[0]?.anchor.hcs_topic_id ?? '';
    await untilArchived(WIRES);
    console.log(
      `log archive: ${WIRES} Wires anchored and archived ${Date.now() - started} ms after the last append`,
    );
    messages = (await mirrorMessages(topicId)).map((m) =>
      new TextDecoder().decode(fromBase64(m.message)),
    );
    notes = messages.map(noteOfMessage);
  }, 60_000);

  it('holds each checkpoint as tlog-tiles, served read-only over the API', async () => {
    expect(notes).toHaveLength(WIRES / EVERY);
    const checkpoint = await tile('checkpoint');
    expect(checkpoint.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    expect(await checkpoint.text()).toBe(notes.at(-1));
    const signer = await parseSignerKey(env.LOG_SIGNER_KEY ?? '');
    if (!signer) throw new Error('no LOG_SIGNER_KEY in vitest.config.ts');
    for (const [k, note] of notes.entries()) {
      const size = (k + 1) * EVERY;
      const opened = await openNote(note, signer);
      const root = opened.ok ? parseCheckpoint(opened.text)?.root : undefined;
      // Entries: the canonical JSON of each anchored envelope, in topic order.
      const entries = decodeBundle(await bytesOf(await tile(`tile/entries/000.p/${size}`))) ?? [];
      const leaves = entries.map(
        (e) => JSON.parse(new TextDecoder().decode(e)) as { wire_id: string },
      );
      expect(leaves.map((l) => l.wire_id)).toEqual(bodies.slice(0, size).map((b) => b.wire_id));
      // Level 0: their leaf hashes, which give the signed root.
      const hashes = decodeHashes(await bytesOf(await tile(`tile/0/000.p/${size}`)), size) ?? [];
      expect(hashes).toEqual(await Promise.all(entries.map((e) => leafHash(e))));
      expect(await edgeRoot(await extendEdge([], 0, hashes))).toEqual(root);
    }
    const res = await tile('tile/0/000.p/30');
    expect(res.headers.get('Content-Type')).toBe('application/octet-stream');
    expect(res.headers.get('Cache-Control')).toContain('immutable');
  });

  it('refuses a path that is not a tile, and answers 404 for a tile it does not have', async () => {
    const bad = await tile('tile/0/12.p/3');
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.map((e) => e.path)).toEqual(['tile_path']);
    expect((await tile('tile/0/000.p/256')).status).toBe(400);
    expect((await tile('tile/0/001')).status).toBe(404);
    const query = await tile('tile/0/000.p/30?level=1');
    expect(query.status).toBe(400);
    expect((await problemOf(query)).errors?.map((e) => e.path)).toEqual(['level']);
    expect((await api('/v1/topics/0.0.999999/log/checkpoint')).status).toBe(404);
    const reader = await SELF.fetch(`https://ws.test/v1/topics/${topicId}/log/checkpoint`, {
      headers: await authHeaders('human:r', ['read'], { streams: ['project:'] }),
    });
    expect(reader.status).toBe(403);
  });

  it('rebuilds the read models from the archive, every entry verified against HCS', async () => {
    await untilQuiet();
    const live = await comparableDump();
    const lines = await runRebuild();
    expect(refusals(lines)).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ phase: 'done', refused: 0 });
    expect(await comparableDump()).toEqual(live);
    expect((await streamRows()).map((r) => r.wire_id)).toEqual(bodies.map((b) => b.wire_id));
  });

  it('pages a log-mode topic by Wires, not by HCS messages, and resumes after a cut', async () => {
    const check = await archiveCheck(env);
    // At most 15 Wires a page: checkpoints of 10 make pages of 20 and 10.
    const source = mirrorSource(hederaConfig(env).mirrorUrl, 100, check, 15);
    const first = await source.page(topicId, { after: 0, pending: [] });
    expect([first.wires.length, first.messages, first.more, first.cursor.after]).toEqual([
      20,
      2,
      true,
      2,
    ]);
    expect(first.cursor.log?.size).toBe(20);
    const second = await source.page(topicId, JSON.parse(JSON.stringify(first.cursor)));
    expect([second.wires.length, second.more, second.refused]).toEqual([10, false, []]);
    expect([...first.wires, ...second.wires].map((w) => w.wire_id)).toEqual(
      bodies.map((b) => b.wire_id),
    );
  });

  it('says which leaves the archive lacks while it is behind, and projects the rest', async () => {
    const keys = ['tile/entries/000.p/30', 'tile/0/000.p/30'].map((p) => archiveKey(topicId, p));
    const saved = await Promise.all(
      keys.map(async (k) => (await env.LOG_ARCHIVE?.get(k))?.arrayBuffer()),
    );
    await env.LOG_ARCHIVE?.delete(keys);
    try {
      const lines = await runRebuild();
      expect(refusals(lines).map((l) => [l.leaf_index, l.to_leaf, l.checkpoint_seq])).toEqual([
        [20, 29, 3],
      ]);
      expect(String(refusals(lines)[0]?.reason)).toMatch(
        /^missing: the archive has no entries for leaves 20–29/,
      );
      expect(lines.at(-1)).toMatchObject({ phase: 'done', wires: 20, refused: 1 });
    } finally {
      await Promise.all(
        keys.map((k, i) => env.LOG_ARCHIVE?.put(k, saved[i] ?? new ArrayBuffer(0))),
      );
    }
  });

  it('refuses a forged checkpoint, one that shrinks the tree, one that skips its prev line, and HCS-27 metadata that is not its note', async () => {
    const check = await archiveCheck(env);
    if (!check) throw new Error('no LOG_SIGNER_KEY in vitest.config.ts');
    const [first = ''] = notes;
    /** The first checkpoint's HCS-27 message, its metadata edited and its note `note`. */
    const messageWith = (note: string, edit: (md: Record<string, unknown>) => void = () => {}) => {
      const m = JSON.parse(messages[0] ?? '{}');
      m.metadata.note = note;
      edit(m.metadata);
      return JSON.stringify(m);
    };
    const expand = (
      note: string,
      cursor?: LogCursor,
      edit?: (md: Record<string, unknown>) => void,
    ) => expandCheckpoint(check, topicId, UTF8.encode(messageWith(note, edit)), 1, '1.0', cursor);
    // One character of the signature changed.
    const sig = first.lastIndexOf(' ') + 30; // past the 4-byte key id, in the signature
    const forged = `${first.slice(0, sig)}${first[sig] === 'A' ? 'B' : 'A'}${first.slice(sig + 1)}`;
    expect((await expand(forged))?.refused.map((r) => r.reason)).toEqual([
      expect.stringMatching(
        /^checkpoint refused: the signature of wirestream.test does not verify/,
      ),
    ]);
    const later = { size: 20, edge: [], prev: null, broken: null };
    const shrinking = await expand(first, later);
    expect(shrinking?.refused.map((r) => r.reason)).toEqual([
      'checkpoint of tree size 10 does not extend tree size 20',
    ]);
    expect(shrinking?.cursor).toEqual(later);
    // A checkpoint that does not name the one before is reported; its leaves still verify.
    const unchained = await expand(first, { size: 0, edge: [], prev: 'AAAA', broken: null });
    expect(unchained?.refused.map((r) => r.reason)).toEqual([
      'checkpoint does not commit to the previous checkpoint (prev line)',
      'checkpoint does not commit to the previous checkpoint (HCS-27 metadata.prev is missing)',
    ]);
    expect(unchained?.wires.map((w) => w.wire_id)).toEqual(
      bodies.slice(0, 10).map((b) => b.wire_id),
    );
    // HCS-27 metadata stating another root than the signed note: refused, nothing projected.
    const otherRoot = btoa('x'.repeat(32))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const misstated = await expand(first, undefined, (md) => {
      (md.root as Record<string, string>).rootHashB64u = otherRoot;
    });
    expect(misstated?.wires).toEqual([]);
    expect(misstated?.refused.map((r) => r.reason)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^checkpoint refused: HCS-27 message: metadata.root.rootHashB64u is ${otherRoot}, the signed note says`,
        ),
      ),
    ]);
    // Someone else's message or note is not this log's business.
    expect(
      await expandCheckpoint(check, topicId, UTF8.encode('not a note at all\n'), 1, '1.0'),
    ).toBeNull();
    expect(
      await expand(first, undefined, (md) => {
        md.stream = { registry: 'other', log_id: 'other/0.0.1' };
        md.note = 'x';
      }),
    ).toBeNull();
  });

  it('refuses a second checkpoint of the same tree size with another root: a forked log', async () => {
    const check = await archiveCheck(env);
    const signer = await parseSignerKey(env.LOG_SIGNER_KEY ?? '');
    if (!check || !signer) throw new Error('no LOG_SIGNER_KEY in vitest.config.ts');
    const [first = '', firstMessage = ''] = [notes[0], messages[0]];
    const verified = await expandCheckpoint(check, topicId, UTF8.encode(firstMessage), 1, '1.0');
    expect(verified?.refused).toEqual([]);
    const cursor = verified?.cursor as LogCursor;
    const opened = await openNote(first, check.verifiers);
    const parsed = opened.ok ? parseCheckpoint(opened.text) : null;
    if (!parsed) throw new Error('the first checkpoint does not open');
    /** A checkpoint of the first one's size, chained to it, with root `root`, as HCS would carry it. */
    const sameSize = async (root: Uint8Array) => {
      const prev = `prev ${toBase64(await sha256(UTF8.encode(first)))}`;
      const text = checkpointText({ ...parsed, root, extensions: [prev] });
      const message = checkpointMessage(await signNote(text, signer), firstMessage);
      return expandCheckpoint(check, topicId, UTF8.encode(message), 2, '2.0', cursor);
    };
    // The same tree signed again: nothing to read, nothing to refuse.
    expect((await sameSize(parsed.root))?.refused).toEqual([]);
    const fork = await sameSize(await sha256(UTF8.encode('another tree')));
    expect(fork?.refused.map((r) => r.reason)).toEqual([
      'checkpoint of tree size 10 has another root than the checkpoint of that size before it: the log forked',
    ]);
    expect(fork?.wires).toEqual([]);
    expect(fork?.cursor).toEqual(cursor);
  });

  it('reports an altered archived entry by leaf and wire_id, and never projects it', async () => {
    const altered = await alterEntry(13, (e) => {
      (e.payload as Record<string, unknown>).concern = 'TAMPERED';
    });
    expect(new TextDecoder().decode(altered)).toContain('TAMPERED');
    await resetReadModels(env.DB);
    const lines = await runRebuild();
    expect(refusals(lines)).toEqual([
      {
        phase: 'refused',
        topic: topicId,
        leaf_index: 13,
        wire_id: bodies[13]?.wire_id,
        checkpoint_seq: 2,
        reason: expect.stringMatching(/^altered: its leaf hash differs/),
      },
    ]);
    expect(lines.at(-1)).toMatchObject({ phase: 'done', refused: 1 });
    const rows = await streamRows();
    expect(rows.map((r) => r.wire_id)).toEqual(
      bodies.filter((_, i) => i !== 13).map((b) => b.wire_id),
    );
    const anywhere = await env.DB.prepare(
      `SELECT (SELECT COUNT(*) FROM wire_events WHERE payload LIKE '%TAMPERED%')
            + (SELECT COUNT(*) FROM stream_state WHERE last_seq > 13 AND stream_id = ?1) AS n`,
    )
      .bind(streamId)
      .first<{ n: number }>();
    expect(anywhere?.n).toBe(0);
  });

  it('refuses a range whose hash tile was forged to match, and every leaf after it', async () => {
    // The attacker also rewrites the level-0 hash of leaf 13 in the tiles of tree sizes 20 and 30.
    const forged = await leafHash(await entryOf(13));
    for (const size of [20, 30]) {
      const key = archiveKey(topicId, `tile/0/000.p/${size}`);
      const hashes = decodeHashes(await bytesOf(await tile(`tile/0/000.p/${size}`)), size) ?? [];
      hashes[13] = forged;
      await env.LOG_ARCHIVE?.put(key, encodeHashes(hashes));
    }
    await resetReadModels(env.DB);
    const lines = await runRebuild();
    expect(refusals(lines).map((l) => [l.leaf_index, l.to_leaf, l.checkpoint_seq])).toEqual([
      [10, 19, 2],
      [20, 29, 3],
    ]);
    expect(String(refusals(lines)[0]?.reason)).toContain('do not give the root');
    expect((await streamRows()).map((r) => r.wire_id)).toEqual(
      bodies.slice(0, 10).map((b) => b.wire_id),
    );
  });
});
