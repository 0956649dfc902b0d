import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sqlOf } from '../../src/kernel/sql';
import { LogLeaves } from '../../src/topic/log-store';
import { TopicLog } from '../../src/topic/topic-log';

/**
 * The archive bundles leaves from the bytes `grow` kept in memory (up to
 * 1 MiB of the newest). Leaves that memory no longer holds are read back from
 * SQLite: both ways must give the same bytes, in leaf order.
 */
describe('a log-mode topic’s leaf bytes for the archive', () => {
  it('come from memory for the newest leaves and from SQLite for the rest, identical', async () => {
    const topic = env.TOPICS.get(env.TOPICS.idFromName(`leaf-bytes-${crypto.randomUUID()}`));
    const got = await runInDurableObject(topic, (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      new TopicLog(sql, state.storage);
      const leaves = new LogLeaves(sql);
      const utf8 = new TextEncoder();
      // 3,000 leaves of ~700 B: ~2 MiB, twice what memory keeps.
      const messages = Array.from(
        { length: 3000 },
        (_, i) => `{"i":${i},"pad":"${'é'.repeat(300)}"}`,
      );
      messages.forEach((message, leaf) => {
        const pos = sql<{ pos: number }>`INSERT INTO wires
          (wire_id, stream_id, stream_seq, message, body, accepted_at)
          VALUES (${`w${leaf}`}, 's', ${leaf + 1}, ${message}, '{}', 0) RETURNING pos`[0]?.pos;
        leaves.add(leaf, pos ?? -1, utf8.encode(message));
      });
      leaves.flush(); // as `grow` does after a batch's last hash
      const text = (bytes: Uint8Array[]) => bytes.map((b) => new TextDecoder().decode(b));
      return {
        expected: messages,
        oldest: text(leaves.bytes(0, 256)),
        newest: text(leaves.bytes(2744, 3000)),
        across: text(leaves.bytes(1200, 2900)),
      };
    });
    expect(got.oldest).toEqual(got.expected.slice(0, 256));
    expect(got.newest).toEqual(got.expected.slice(2744, 3000));
    expect(got.across).toEqual(got.expected.slice(1200, 2900));
  });
});
