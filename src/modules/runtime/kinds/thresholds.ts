import type { Draft, Wire } from '../../../protocol';
import { rtId, systemDraft } from '../envelope';
import { LEVELS } from '../payloads';
import { channelIdOf, jobIdFor } from './channel-ids';
import { type ChannelState, evolveChannel } from './channel-state';
import { THRESHOLDS } from './compactor';

/**
 * The compactor (FR-6): the channel's utilization once `command` is in its
 * context; each level it newly crosses fires once, in the same stretch.
 * Any Wire that adds to the context counts: a message, a branch's
 * conclusion, the Visor's digest.
 */
export function thresholdHits(command: Wire, state: ChannelState, now: number): Draft[] {
  const next = evolveChannel(state, command);
  const channelId = channelIdOf(command.stream_id);
  const seq = command.stream_seq;
  const from = next.segments[0]?.from ?? seq;
  const hits: Draft[] = [];
  LEVELS.forEach((level, i) => {
    if (i + 1 <= next.level || next.utilization <= THRESHOLDS[level]) return;
    hits.push(
      systemDraft({
        streamId: command.stream_id,
        ts: new Date(now).toISOString(),
        traceId: command.correlation_id,
        channelId,
        messageType: 'compactor.threshold.hit',
        wireId: rtId('threshold', seq, level),
        payload: {
          level,
          threshold: THRESHOLDS[level],
          utilization: Math.round(next.utilization * 10_000) / 10_000,
          liveTokens: next.liveTokens,
          contextBudget: next.contextBudget,
          fromSeq: from,
          toSeq: seq,
          jobWorkerId: jobIdFor(channelId, seq, level),
        },
      }),
    );
  });
  return hits;
}
