import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ArchiveReader, archiveKey } from '../../src/anchor/log/archive';
import { noteOfMessage } from '../../src/anchor/log/hcs27';
import { edgeRoot, extendEdge, rootAt } from '../../src/anchor/log/merkle';
import { parseSignerKey } from '../../src/anchor/log/note';
import { sqlOf } from '../../src/kernel/sql';
import { type StoredWire, wireMessage } from '../../src/protocol';
import { LogArchiver } from '../../src/topic/log-archive';
import { TopicLogMode } from '../../src/topic/log-mode';
import { TopicLog } from '../../src/topic/topic-log';

/**
 * The archive writer (`topic/log-archive.ts`) on a Durable Object's real
 * SQLite and the real R2 binding, driven directly (no HCS needed): the
 * tiles of a log past one tile, and an R2 outage. The archive is a copy behind a durable cursor: when R2 fails part way
 * through a checkpoint, the cursor stays where it was, nothing in SQLite is
 * lost, and a later pass writes the whole checkpoint again from there. Run
 * on a Durable Object's real SQLite and the real R2 binding, with an outage
 * injected in front of the bucket (R2 cannot be made to fail locally).
 */
const TOPIC_ID = '0.0.990001';
const LEAVES = 5;

/** The real bucket, failing every put from the `from`-th on. */
function outage(bucket: R2Bucket, from: number): R2Bucket {
  let puts = 0;
  return new Proxy(bucket, {
    get(target, key) {
      if (key !== 'put') return Reflect.get(target, key);
      return (...args: Parameters<R2Bucket['put']>) => {
        puts += 1;
        if (puts >= from) return Promise.reject(new Error('R2 is unavailable'));
        return target.put(...args);
      };
    },
  });
}

function wires(n: number, tag = 'outage'): StoredWire[] {
  return Array.from({ length: n }, (_, i) => ({
    wire: '1.1',
    wire_id: `wire_${tag.replace(/\W/g, '_')}_${i}`,
    stream_id: `project:${tag.replace(/\W/g, '-')}`,
    stream_seq: i + 1,
    correlation_id: null,
    causation_id: null,
    type: 'review.concern',
    sender: 'agent:quinn-07',
    ts: '2026-05-01T16:00:00Z',
    payload: { concern: `c${i}` },
    received_at: '2026-05-01T16:00:01Z',
  })) as StoredWire[];
}

/**
 * Runs `body` inside a scratch TopicObject whose log of `n` leaves has one
 * signed checkpoint (its HCS id `topicId`, never sent: the archive does not need it).
 */
async function withLog(
  topicId: string,
  n: number,
  body: (log: TopicLog, mode: TopicLogMode, bucket: R2Bucket) => Promise<void>,
): Promise<void> {
  const bucket = env.LOG_ARCHIVE;
  const signer = await parseSignerKey(env.LOG_SIGNER_KEY ?? '');
  if (!bucket || !signer) throw new Error('LOG_ARCHIVE and LOG_SIGNER_KEY must be bound');
  const name = `archive-${topicId}`;
  await runInDurableObject(env.TOPICS.get(env.TOPICS.idFromName(name)), async (_o, state) => {
    const sql = sqlOf(state.storage.sql);
    const log = new TopicLog(sql, state.storage);
    log.set('name', name);
    log.set('hcs_topic_id', topicId);
    log.accept(wires(n, name), wireMessage, Date.now());
    const mode = new TopicLogMode(sql, log);
    await mode.grow();
    const settings = { mode: 'log' as const, every: n, ms: 1 };
    await mode.checkpoint(signer, `${signer.name}/${topicId}`, settings, Date.now());
    await body(log, mode, bucket);
  });
}

describe('the log archive during an R2 outage', () => {
  it('keeps its cursor, loses nothing, and catches up once R2 is back', async () => {
    await withLog(TOPIC_ID, LEAVES, async (log, mode, bucket) => {
      // The entry bundle goes in, then R2 fails on the hash tile.
      const down = new LogArchiver(log, outage(bucket, 2));
      const now = Date.now();
      const retryAt = await down.catchUp(mode, now);
      expect(retryAt).toBeGreaterThan(now);
      expect(down.status()).toEqual({ archived_size: 0, last_error: 'R2 is unavailable' });
      expect(await bucket.head(archiveKey(TOPIC_ID, 'tile/entries/000.p/5'))).not.toBeNull();
      expect(await bucket.head(archiveKey(TOPIC_ID, 'checkpoint'))).toBeNull();

      // Back (a later pass, or a restarted object): from the cursor kept in SQLite.
      const up = new LogArchiver(log, bucket);
      expect(up.status().archived_size).toBe(0);
      expect(await up.catchUp(mode, Date.now())).toBeNull();
      expect(up.status()).toEqual({ archived_size: LEAVES, last_error: null });
      const reader = new ArchiveReader(bucket, TOPIC_ID);
      const entries = await reader.entries(0, LEAVES);
      const decoded = entries.map((e) => new TextDecoder().decode(e ?? new Uint8Array()));
      expect(decoded).toEqual(mode.leaves.messages(0, LEAVES));
      expect((await reader.leafHashes(0, LEAVES)).every((h) => h?.byteLength === 32)).toBe(true);
      const checkpoint = await bucket.get(archiveKey(TOPIC_ID, 'checkpoint'));
      // The signed note (tlog-tiles' checkpoint), not the HCS-27 message it went to HCS in.
      const text = await checkpoint?.text();
      expect(text).toBe(noteOfMessage(mode.checkpoints.last()?.message ?? ''));
      expect(text).toMatch(/^wirestream\.test\/0\.0\.\d+\n5\n/);
    });
  });

  it('archives a log past one tile: a full level-0 tile and a level-1 tile of its root', async () => {
    const topicId = '0.0.990002';
    await withLog(topicId, 300, async (log, mode, bucket) => {
      const archiver = new LogArchiver(log, bucket);
      expect(await archiver.catchUp(mode, Date.now())).toBeNull();
      const listed = await bucket.list({ prefix: archiveKey(topicId, '') });
      expect(listed.objects.map((o) => o.key.slice(archiveKey(topicId, '').length)).sort()).toEqual(
        [
          'checkpoint',
          'tile/0/000',
          'tile/0/001.p/44',
          'tile/1/000.p/1',
          'tile/entries/000',
          'tile/entries/001.p/44',
        ],
      );
      // The level-1 hash is the Merkle root of the first 256 leaves.
      const level1 = await bucket.get(archiveKey(topicId, 'tile/1/000.p/1'));
      expect(new Uint8Array((await level1?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(
        await rootAt(mode.tree, 256),
      );
      const reader = new ArchiveReader(bucket, topicId);
      const leaves = await reader.entries(250, 300);
      expect(leaves.map((e) => new TextDecoder().decode(e ?? new Uint8Array()))).toEqual(
        mode.leaves.messages(250, 300),
      );
      const hashes = await reader.leafHashes(0, 300);
      expect(await edgeRoot(await extendEdge([], 0, hashes as Uint8Array[]))).toEqual(
        await rootAt(mode.tree, 300),
      );
    });
  });
});
