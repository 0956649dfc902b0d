import {
  type AnchoredEnvelope,
  anchoredFromMirror,
  type MirrorMessage,
  mirrorMessages,
  verifyAnchoredWire,
} from '../client';
import { dataKeyArg, dataKeyLookup } from './data-key-arg';
import { emit, type Output } from './format';
import { UsageError } from './usage';
import { mirrorUnreachable } from './verify';

/**
 * `keys check <hcs_topic_id> <sequence_number> [--keys-topic T] [--coordinator ACCOUNT]
 * [--mirror URL]`: the auditor's check from mirror data alone. Reads the Wire
 * at that place on HCS, the key Wires of its sender from the topic its agent
 * stream anchors on, and tells whether the agent signed it (exit 0) or not (1).
 * A private project's sealed Wire is checked without its key, over the clear
 * fields and `sig.commitment` (`verifyAnchoredWire`); with `--data-key` (the
 * project's data key, `data-key-arg.ts`) its payload is also decrypted and
 * checked to make that commitment with the salt sealed beside it.
 */
export interface CheckFlags {
  'keys-topic'?: string | undefined;
  coordinator?: string | undefined;
  mirror?: string | undefined;
  'data-key'?: string | undefined;
}

function envelopeOf(message: MirrorMessage): AnchoredEnvelope | null {
  try {
    return anchoredFromMirror(message);
  } catch {
    return null; // a chunk, a checkpoint note: not a whole Wire
  }
}

const PAYLOAD_NOTE = {
  clear: '',
  sealed: " (private: over the sealed payload's commitment)",
  opened: ' (private: the payload, decrypted with --data-key, makes sig.commitment)',
};

export async function keysCheck(
  topic: string | undefined,
  seqText: string | undefined,
  flags: CheckFlags,
  output: Output,
): Promise<number> {
  const seq = Number(seqText);
  if (!topic || !Number.isSafeInteger(seq) || seq < 1) {
    throw new UsageError('usage: wirestream keys check <hcs_topic_id> <sequence_number>');
  }
  const given = flags['data-key'] === undefined ? null : await dataKeyArg(flags['data-key']);
  const mirror = {
    mirrorUrl: flags.mirror ?? process.env.WIRESTREAM_MIRROR_URL ?? 'http://127.0.0.1:5551',
  };
  let anchored: AnchoredEnvelope | null = null;
  try {
    for await (const m of mirrorMessages(mirror, topic, seq - 1)) {
      if (m.sequence_number === seq) anchored = envelopeOf(m);
      break;
    }
  } catch (error) {
    throw mirrorUnreachable(mirror.mirrorUrl, error);
  }
  if (anchored === null)
    throw new UsageError(`message ${seq} of ${topic} is not a Wire on the mirror`);
  if ((anchored.envelope as Record<string, unknown>).p === 'hcs-27') {
    throw new UsageError(
      `message ${seq} of ${topic} is a log-mode checkpoint, not a Wire: keys check reads Wires ` +
        'anchored in envelope mode, one per message; in log mode a Wire is the `leaf` of its proof ' +
        '(GET /v1/wires/{wire_id}/proof)',
    );
  }
  const sender = anchored.envelope.sender;
  const history: AnchoredEnvelope[] = [];
  for await (const m of mirrorMessages(mirror, flags['keys-topic'] ?? topic)) {
    const entry = envelopeOf(m);
    const type = String(entry?.envelope.type ?? '');
    if (entry && entry.envelope.stream_id === sender && type.startsWith('agent.key.')) {
      history.push(entry);
    }
  }
  const options = {
    ...(flags.coordinator ? { coordinator: flags.coordinator } : {}),
    ...(given ? { dataKey: dataKeyLookup(given) } : {}),
  };
  const checked = await verifyAnchoredWire(anchored, history, options);
  // What the data key could not open is said of the argument that gave it.
  const keyFailed =
    given !== null && !checked.ok && ['needs-key', 'payload-mismatch'].includes(checked.reason);
  const result = keyFailed ? { ...checked, detail: `--data-key: ${checked.detail}` } : checked;
  const human = result.ok
    ? `signed by ${result.sender} with ${result.kid}${PAYLOAD_NOTE[result.payload ?? 'clear']} (${history.length} key Wires read)`
    : `not verified (${result.reason}): ${result.detail}`;
  emit(
    output,
    { ...result, hcs_topic_id: topic, sequence_number: seq, key_wires: history.length },
    human,
  );
  return result.ok ? 0 : 1;
}
