import {
  checkLogProof,
  type LogCheckName,
  type LogCheckStep,
  type LogProof,
  type LogProofCheck,
  type PinnedKeys,
  pinnedKeys,
  readLogProof,
} from '../anchor/log/check-proof';
import { readCheckpointMessage } from '../anchor/log/hcs27';
import { parseBase64, toBase64 } from '../protocol/base64';
import {
  expectedRunningHash,
  type MirrorOptions,
  messageWithPrevious,
  mirrorUnreached,
} from './proof';

export {
  type LogCheckStep,
  type LogProof,
  type LogProofCheck,
  readLogProof,
} from '../anchor/log/check-proof';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a log-mode proof from the mirror node alone: the leaf is the Wire the
 * proof names, the inclusion path leads from its hash to the root of the
 * checkpoint, the checkpoint is signed by the log's key for this topic, and
 * it is, byte for byte, the note the HCS-27 message at the sequence number
 * given carries (metadata agreeing with it), whose
 * running hash follows from the one before it.
 */
export async function verifyLogProof(
  options: MirrorOptions & PinnedKeys,
  value: unknown,
): Promise<LogProofCheck> {
  const read = readLogProof(value);
  const v = isObject(value) ? value : {};
  const anchorOf = isObject(v.checkpoint_anchor) ? v.checkpoint_anchor : {};
  const checks: LogCheckStep[] = [];
  const step = (check: LogCheckName, ok: boolean, detail: string) =>
    checks.push({ check, ok, detail });
  const done = (): LogProofCheck => {
    const failed = checks.find((c) => !c.ok);
    return {
      ok: failed === undefined,
      wire_id: String(v.wire_id ?? ''),
      hcs_topic_id: String(anchorOf.hcs_topic_id ?? ''),
      hcs_sequence_number: Number(anchorOf.hcs_sequence_number ?? 0),
      leaf_index: Number(v.leaf_index ?? -1),
      tree_size: Number(v.tree_size ?? 0),
      key_source: pinnedKeys(options).length === 0 ? 'proof' : 'pinned',
      checks,
      ...(failed ? { problem: { check: failed.check, reason: failed.detail } } : {}),
    };
  };
  if (!read.ok) {
    step('proof', false, read.reason);
    return done();
  }
  const proof = read.proof;
  checks.push(...(await checkLogProof(proof, pinnedKeys(options))));
  if (checks.some((c) => c.check === 'key' && !c.ok)) return done();
  const { hcs_topic_id: topicId, hcs_sequence_number: seq } = proof.checkpoint_anchor;
  await checkOnMirror(options, proof, topicId, seq, step);
  return done();
}

/**
 * HCS message `seq` is an HCS-27 message carrying the checkpoint note, byte
 * for byte, with metadata that agrees with it; and its running hash follows.
 */
async function checkOnMirror(
  options: MirrorOptions,
  proof: LogProof,
  topicId: string,
  seq: number,
  step: (check: LogCheckName, ok: boolean, detail: string) => void,
) {
  const where = `${topicId}#${seq}`;
  let fetched: Awaited<ReturnType<typeof messageWithPrevious>>;
  try {
    fetched = await messageWithPrevious(options, topicId, seq);
  } catch (error) {
    step(
      'on-hcs',
      false,
      mirrorUnreached(error)
        ? `cannot reach the mirror node at ${options.mirrorUrl} to read message ${where} (fetch failed): set WIRESTREAM_MIRROR_URL or --mirror`
        : `the mirror has no message ${where}: ${(error as Error).message}`,
    );
    return;
  }
  const { message, previous } = fetched;
  const bytes = parseBase64(message.message);
  const whole = (message.chunk_info?.total ?? 1) === 1;
  const read = whole && bytes ? readCheckpointMessage(new TextDecoder().decode(bytes)) : null;
  const same = read?.ok === true && read.note === proof.checkpoint;
  step(
    'on-hcs',
    same,
    same
      ? `the checkpoint is the note in HCS-27 message ${where}, whose metadata agrees with it`
      : read && !read.ok
        ? `message ${where}: ${read.reason}`
        : `message ${where} does not carry the proof's checkpoint`,
  );
  const computed = toBase64(await expectedRunningHash(previous, message));
  const anchor = proof.checkpoint_anchor;
  const problem =
    computed !== message.running_hash
      ? `the running hash of ${where} does not follow from the previous one and this message`
      : message.running_hash !== anchor.running_hash
        ? `the mirror's running hash of ${where} is not the proof's`
        : message.consensus_timestamp !== anchor.consensus_timestamp
          ? `${where} reached consensus at ${message.consensus_timestamp}, the proof says ${anchor.consensus_timestamp}`
          : null;
  step(
    'running-hash',
    problem === null,
    problem ?? `the running hash of ${where} follows from #${seq - 1}`,
  );
}
