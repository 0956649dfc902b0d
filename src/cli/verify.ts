import { latestSequence, verifyTopic } from '../client/proof';
import { emit, type Output } from './format';
import { ProgressBar } from './progress';

/**
 * `verify <topic> [--mirror URL]`: recomputes the topic's running-hash chain
 * from the mirror node's data. Exit code 0 when every message checks out.
 */
export async function verify(
  topicId: string,
  flags: { mirror?: string },
  output: Output,
): Promise<number> {
  const mirrorUrl = flags.mirror ?? process.env.WIRESTREAM_MIRROR_URL ?? 'http://127.0.0.1:5551';
  const total = await latestSequence({ mirrorUrl }, topicId);
  const bar = new ProgressBar(`verify ${topicId}`, total);
  const result = await verifyTopic(
    { mirrorUrl, onProgress: (checked) => bar.update(checked) },
    topicId,
  );
  bar.finish();
  const human = result.ok
    ? `ok: ${result.checked} messages of ${topicId} chain to running hash #${result.last_sequence_number}`
    : `FAILED at #${result.problem?.sequence_number}: ${result.problem?.reason} (${result.checked} checked before)`;
  emit(output, result, human);
  return result.ok ? 0 : 1;
}
