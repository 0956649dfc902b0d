import { ChunkAssembler, type MirrorMessage, readTopicMessages } from '../anchor/mirror';
import { emptyRunningHash, stepChain } from '../anchor/running-hash';
import { draftOf } from '../kernel/append';
import { parseRows, rowShape, type Sql } from '../kernel/sql';
import { REGISTRY } from '../modules';
import type { AnchorRecord, Draft, Failure } from '../protocol';
import { fromBase64, toBase64 } from '../protocol/base64';
import { type HcsFirstPolicy, hcsFirstProblem } from './hcs-first';
import type { Alert, AlertKind } from './topic-directory';
import type { TopicLog } from './topic-log';

/**
 * The listener's pass over one topic (run by the Cron Trigger): reads the
 * mirror node from the stored offset, checks sequence continuity and
 * recomputes the running-hash chain, reassembles chunks, and for each whole
 * message either confirms the Wire the coordinator submitted (byte for byte,
 * and records its anchor if the receipt was lost) or ingests a Wire an agent
 * put on HCS directly through its StreamObject, under the same validation.
 */
const PAGES_PER_PASS = 20;

export interface ListenResult {
  read: number;
  listened_to_seq: number;
  alerts: number;
  ingested: number;
  rejected: number;
}

export type IngestOutcome = { ok: true; replay: boolean } | { ok: false; detail: string };

export interface ListenDeps {
  sql: Sql;
  log: TopicLog;
  name: string;
  topicId: string;
  mirrorUrl: string;
  ingest(
    draft: Draft,
    expectedSeq: number | undefined,
    message: string,
    anchor: Omit<AnchorRecord, 'stream_seq'>,
  ): Promise<IngestOutcome>;
  alert(alerts: Alert[]): Promise<void>;
  now(): number;
  /** Whose Wires put on HCS directly are ingested (`HCS_FIRST`, see `hcsFirstPolicy`). */
  hcsFirst: HcsFirstPolicy;
  /** Whether an HCS-27 message is a checkpoint of this topic's log (log mode). */
  ownCheckpoint(text: string): Promise<boolean>;
  /** What the Wire's type needs of other streams (`TypeSpec.admit`), as on every append. */
  admit(draft: Draft): Promise<Failure | null>;
  /** The append path's signature guard (`kernel/signatures.ts`): a keyed agent's Wires must be signed here too. */
  signature(draft: Draft): Promise<Failure | null>;
}

const CHUNK_ROW = rowShape('listen_chunks', { body: 'text' });

export async function listenPass(deps: ListenDeps): Promise<ListenResult> {
  const { sql, log, topicId } = deps;
  sql`CREATE TABLE IF NOT EXISTS listen_chunks (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)`;
  const assembler = new ChunkAssembler(
    parseRows(CHUNK_ROW, sql`SELECT body FROM listen_chunks ORDER BY seq`).map(
      (r) => JSON.parse(r.body) as MirrorMessage,
    ),
  );
  let lastSeq = Number(log.get('listen_seq') ?? '0');
  let hash = log.get('listen_hash');
  let prev = hash === null ? emptyRunningHash() : fromBase64(hash);
  const result: ListenResult = {
    read: 0,
    listened_to_seq: lastSeq,
    alerts: 0,
    ingested: 0,
    rejected: 0,
  };
  const alerts: Alert[] = [];
  const raise = (kind: AlertKind, seq: number | null, detail: string) =>
    alerts.push({
      at: new Date(deps.now()).toISOString(),
      topic: deps.name,
      hcs_topic_id: topicId,
      kind,
      sequence_number: seq,
      detail,
    });

  for (let page = 0; page < PAGES_PER_PASS; page++) {
    const { messages, hasMore } = await readTopicMessages(deps.mirrorUrl, topicId, lastSeq);
    for (const m of messages) {
      result.read++;
      const step = await stepChain(prev, lastSeq, m, topicId);
      if (!step.ok && step.kind === 'sequence-gap') {
        raise(
          'sequence-gap',
          m.sequence_number,
          `expected sequence ${lastSeq + 1}, mirror served ${m.sequence_number}`,
        );
      } else if (!step.ok) {
        raise(
          'running-hash-mismatch',
          m.sequence_number,
          `running hash ${m.running_hash} does not follow from the previous message; recomputed ${step.computed}`,
        );
      }
      prev = step.next;
      lastSeq = m.sequence_number;
      const whole = assembler.add(m);
      if (whole) await onMessage(deps, whole.bytes, whole.last, whole.chunks, raise, result);
    }
    hash = toBase64(prev);
    log.set('listen_seq', String(lastSeq));
    log.set('listen_hash', hash);
    sql`DELETE FROM listen_chunks`;
    for (const m of assembler.pending()) {
      sql`INSERT OR REPLACE INTO listen_chunks (seq, body) VALUES (${m.sequence_number}, ${JSON.stringify(m)})`;
    }
    if (!hasMore || messages.length === 0) break;
  }
  if (alerts.length > 0) await deps.alert(alerts);
  result.alerts = alerts.filter((a) => a.kind !== 'hcs-first-ingested').length;
  result.listened_to_seq = lastSeq;
  return result;
}

async function onMessage(
  deps: ListenDeps,
  bytes: Uint8Array,
  last: MirrorMessage,
  chunks: number,
  raise: (kind: AlertKind, seq: number | null, detail: string) => void,
  result: ListenResult,
): Promise<void> {
  const seq = last.sequence_number;
  const text = new TextDecoder().decode(bytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    raise('hcs-first-rejected', seq, 'message is not JSON');
    result.rejected++;
    return;
  }
  if ((body as { p?: unknown } | null)?.p === 'hcs-27' && (await deps.ownCheckpoint(text))) return;
  const wireId = (body as { wire_id?: unknown } | null)?.wire_id;
  const streamId = (body as { stream_id?: unknown } | null)?.stream_id;
  const own =
    typeof wireId === 'string' && typeof streamId === 'string'
      ? deps.log.byWire(streamId, wireId)
      : null;
  const anchor = {
    hcs_topic_id: deps.topicId,
    hcs_sequence_number: seq,
    consensus_timestamp: last.consensus_timestamp,
    running_hash: last.running_hash,
    hcs_chunks: chunks,
  };
  if (own) {
    if (own.message !== text) {
      raise(
        'content-mismatch',
        seq,
        `wire ${own.wire_id}: message on HCS differs from the Wire the coordinator submitted`,
      );
    } else if (own.hcs_sequence_number === null) {
      // Its receipt was lost; the mirror proves where it landed.
      deps.log.recordAnchor(own.pos, anchor, deps.now());
    } else if (own.hcs_sequence_number !== seq) {
      raise(
        'content-mismatch',
        seq,
        `wire ${own.wire_id} is also anchored at sequence ${own.hcs_sequence_number}`,
      );
    }
    return;
  }
  // The one append path's parse and catalogue checks; HCS_FIRST stands for the token.
  const parsed = typeof streamId === 'string' ? draftOf(body, streamId, REGISTRY) : null;
  if (parsed === null || !parsed.ok) {
    raise('hcs-first-rejected', seq, parsed === null ? 'message has no stream_id' : parsed.detail);
    result.rejected++;
    return;
  }
  const unproven = hcsFirstProblem(parsed.draft, last.payer_account_id, REGISTRY, deps.hcsFirst);
  if (unproven !== null) {
    raise('hcs-first-rejected', seq, `wire ${parsed.draft.wire_id}: ${unproven}`);
    result.rejected++;
    return;
  }
  const refused = await deps.admit(parsed.draft);
  if (refused !== null) {
    raise('hcs-first-rejected', seq, `wire ${parsed.draft.wire_id}: ${refused.detail}`);
    result.rejected++;
    return;
  }
  const unsigned = await deps.signature(parsed.draft);
  if (unsigned !== null) {
    raise('hcs-first-rejected', seq, `wire ${parsed.draft.wire_id}: ${unsigned.detail}`);
    result.rejected++;
    return;
  }
  const outcome = await deps.ingest(parsed.draft, parsed.expectedSeq, text, {
    ...anchor,
    wire_id: parsed.draft.wire_id,
    stream_id: parsed.draft.stream_id,
  });
  if (outcome.ok) {
    if (!outcome.replay) {
      raise(
        'hcs-first-ingested',
        seq,
        `wire ${parsed.draft.wire_id} ingested into ${parsed.draft.stream_id}`,
      );
      result.ingested++;
    }
  } else {
    raise('hcs-first-rejected', seq, `wire ${parsed.draft.wire_id}: ${outcome.detail}`);
    result.rejected++;
  }
}
