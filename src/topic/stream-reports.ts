import type { Env } from '../env';
import type { AnchorRecord, Draft } from '../protocol';
import { streamStub } from '../stream/stub';
import type { IngestOutcome } from './listener';
import { directoryStub } from './topic-directory';
import { type AnchorRow, anchorOf, type TopicLog } from './topic-log';

/**
 * What a TopicObject tells the StreamObjects and the TopicDirectory: the
 * anchors of Wires it submitted (`notifyStreams`, each pass), and Wires the
 * listener found on HCS that no stream holds yet (`ingestFound`, HCS-first).
 */
export interface StreamReports {
  env: Pick<Env, 'STREAMS' | 'TOPIC_DIRECTORY'>;
  log: TopicLog;
}

/** Reports new anchors to their streams (and the directory); true if some are left. */
export async function notifyStreams({ env, log }: StreamReports): Promise<boolean> {
  const topicId = log.get('hcs_topic_id');
  const name = log.get('name') ?? 'default';
  if (topicId === null) return false;
  const rows = log.unnotified(500);
  if (rows.length === 0) return false;
  const byStream = new Map<string, AnchorRow[]>();
  for (const row of rows) {
    const group = byStream.get(row.stream_id);
    if (group) group.push(row);
    else byStream.set(row.stream_id, [row]);
  }
  await directoryStub(env).indexWires(
    name,
    rows.map((r) => ({ wire_id: r.wire_id, stream_id: r.stream_id })),
  );
  let left = false;
  for (const [streamId, group] of byStream) {
    const anchors = group.flatMap((r) => anchorOf(r, topicId) ?? []);
    try {
      await streamStub(env, streamId).markAnchored(name, anchors);
      log.markNotified(group.map((r) => r.pos));
    } catch (error) {
      console.warn(`topic ${name}: stream ${streamId} did not take its anchors`, error);
      left = true;
    }
  }
  return left || rows.length === 500;
}

/** A Wire found on HCS, handed to its stream and, once the stream took it, kept in the topic's log. */
export async function ingestFound(
  { env, log }: StreamReports,
  name: string,
  draft: Draft,
  expectedSeq: number | undefined,
  message: string,
  anchor: Omit<AnchorRecord, 'stream_seq'>,
): Promise<IngestOutcome> {
  const result = await streamStub(env, draft.stream_id).ingestAnchored(
    draft,
    expectedSeq,
    name,
    anchor,
  );
  if (!result.ok) return { ok: false, detail: `${result.code}: ${result.detail}` };
  if (result.replay) return { ok: true, replay: true };
  const { stream_seq, received_at } = result.receipt;
  log.acceptIngested({ ...draft, stream_seq, received_at }, message, anchor, Date.now());
  await directoryStub(env).indexWires(name, [
    { wire_id: draft.wire_id, stream_id: draft.stream_id },
  ]);
  return { ok: true, replay: false };
}
