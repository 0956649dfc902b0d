import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeys, parseSignerKey, verifierKeyOf } from '../../src/anchor/log/note';
import {
  type ArchiveCheck,
  archiveCheck,
  expandCheckpoint,
  type LogCursor,
} from '../../src/projection/archive-verify';
import { fromBase64 } from '../../src/protocol/base64';
import {
  api,
  appendInLogMode,
  type MirrorMessage,
  mirrorMessages,
  untilAnchored,
} from './helpers/anchoring';
import { uniqueStream } from './helpers/wires';

/**
 * The archive verifier after a rotation of the log key (README, Rotating the
 * log key), in workerd with the real R2 binding and the stand-in network: a
 * topic's checkpoints signed by the deployment's key (vitest.config.ts) are
 * read by a deployment whose LOG_SIGNER_KEY is a newer key of the same name.
 * Listed in LOG_VERIFIER_KEYS, they verify entry by entry; not listed, each is
 * refused with the key that signed it, and nothing is projected.
 * (test/node/log-key-rotation.test.ts rotates a running deployment end to end.)
 */
const EVERY = 5;
const WIRES = 10;
const streamId = uniqueStream('project');
const topic = `project.${streamId.slice('project:'.length)}`;
let topicId = '';
let messages: MirrorMessage[] = [];
let oldKey = '';
let newer = { signer: '', verifier: '' };

/** Every checkpoint message of the topic, expanded in order as a rebuild would. */
async function expandAll(check: ArchiveCheck) {
  let cursor: LogCursor | undefined;
  const out = { wires: [] as string[], refused: [] as string[] };
  for (const m of messages) {
    const bytes = fromBase64(m.message);
    const seq = m.sequence_number;
    const expanded = await expandCheckpoint(
      check,
      topicId,
      bytes,
      seq,
      m.consensus_timestamp,
      cursor,
    );
    if (!expanded) continue;
    cursor = expanded.cursor;
    out.wires.push(...expanded.wires.map((w) => w.wire_id));
    out.refused.push(...expanded.refused.map((r) => `#${r.checkpoint_seq}: ${r.reason}`));
  }
  return out;
}

describe('the archive verifier across a log-key rotation', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    const bodies = await appendInLogMode(topic, streamId, EVERY, WIRES, 'r');
    ids.push(...bodies.map((b) => b.wire_id));
    const wires = await untilAnchored(streamId, [topic], 30_000);
    topicId = wires[0]?.anchor.hcs_topic_id ?? '';
    for (let archived = 0; archived < WIRES; ) {
      const view = (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as {
        archive: { archived_size: number };
      };
      archived = view.archive.archived_size;
      if (archived < WIRES) await new Promise((r) => setTimeout(r, 50));
    }
    messages = await mirrorMessages(topicId);
    const signer = await parseSignerKey(env.LOG_SIGNER_KEY ?? '');
    if (!signer) throw new Error('no LOG_SIGNER_KEY in vitest.config.ts');
    oldKey = verifierKeyOf(signer);
    newer = await generateKeys(signer.name);
  }, 60_000);

  it('verifies every entry of the earlier key’s checkpoints once that key is listed', async () => {
    expect(messages).toHaveLength(WIRES / EVERY);
    const check = await archiveCheck({
      ...env,
      LOG_SIGNER_KEY: newer.signer,
      LOG_VERIFIER_KEYS: oldKey,
    });
    if (!check) throw new Error('the rotated keys do not read');
    expect(check.verifiers.map(verifierKeyOf)).toEqual([newer.verifier, oldKey]);
    expect(await expandAll(check)).toEqual({ wires: ids, refused: [] });
  });

  it('refuses them, naming the key, when the earlier key is not listed', async () => {
    const unrelated = await generateKeys(newer.verifier.split('+')[0] as string);
    const check = await archiveCheck({
      ...env,
      LOG_SIGNER_KEY: newer.signer,
      LOG_VERIFIER_KEYS: unrelated.verifier,
    });
    if (!check) throw new Error('the rotated keys do not read');
    const [name, id] = oldKey.split('+');
    const reason = `checkpoint refused: signed by the key ${name}+${id}, which is neither LOG_SIGNER_KEY's nor in LOG_VERIFIER_KEYS`;
    expect(await expandAll(check)).toEqual({
      wires: [],
      refused: messages.map((m) => `#${m.sequence_number}: ${reason}`),
    });
  });

  it('has no keys to rebuild with while LOG_VERIFIER_KEYS is malformed', async () => {
    const env2 = { ...env, LOG_SIGNER_KEY: newer.signer, LOG_VERIFIER_KEYS: `${oldKey} nonsense` };
    expect(await archiveCheck(env2)).toBeNull();
  });
});
