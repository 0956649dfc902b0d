import * as z from 'zod';
import { ChunkAssembler, type MirrorMessage, readTopicMessages } from '../anchor/mirror';
import { encOf } from '../private/seal';
import { AnyPayload, draftOf, Signature, StreamId, WireId, WireType } from '../protocol';
import {
  type ArchiveCheck,
  type ArchiveRefusal,
  expandCheckpoint,
  type LogCursor,
} from './archive-verify';
import type { ProjectedWire } from './types';

/**
 * Where a topic's reading stands between pages: the last sequence number read
 * and the chunks still waiting for the rest of their message. Plain JSON, so a
 * rebuild can keep it in storage and resume after a restart.
 */
export interface TopicCursor {
  after: number;
  pending: MirrorMessage[];
  /** A log-mode topic's verification so far (`archive-verify.ts`). */
  log?: LogCursor;
}

export interface SourcePage {
  /** Decoded Wires, in topic order. */
  wires: ProjectedWire[];
  messages: number;
  /** Whole messages that are not Wires. */
  skipped: number;
  /**
   * The sequence numbers of those that are not checkpoints either: an agent's
   * Wire in another dialect or without its `stream_seq` may be among them
   * (`own-wires.ts` asks the topic).
   */
  undecoded?: number[];
  cursor: TopicCursor;
  /** False once the topic has no more messages (as far as the mirror knows). */
  more: boolean;
  /** Archived log entries not projected, and why (log mode). */
  refused?: ArchiveRefusal[];
  /**
   * Of `wires`, those read from the R2 archive under a checkpoint signed by
   * the deployment's log key (log mode): the coordinator's own by that
   * signature, and anchored at the checkpoint that vouched for them, which
   * may be a later one than the topic recorded (an earlier key's refused).
   */
  logged?: ReadonlySet<ProjectedWire>;
  /**
   * Of `wires` read from HCS messages, the initial transaction id each was
   * sent under, where the message names one (`chunk_info`): which copy of a
   * Wire is the topic's own before it has confirmed one (`own-wires.ts`).
   */
  txIds?: ReadonlyMap<ProjectedWire, string>;
}

/** Where a rebuild reads Wires from: HCS topics, a page at a time. */
export interface RebuildSource {
  /** The page after `cursor` (from the topic's start: `{ after: 0, pending: [] }`). */
  page(topic: string, cursor: TopicCursor): Promise<SourcePage>;
}

/**
 * The envelope as it sits in an HCS message (canonical JSON of a stored
 * Wire). Parsed loosely: a message from another producer may carry more.
 */
const HcsWire = z.looseObject({
  wire: z.literal('1.1'),
  wire_id: WireId,
  stream_id: StreamId,
  stream_seq: z.int().min(1),
  correlation_id: z.string().nullable().optional(),
  causation_id: z.string().nullable().optional(),
  type: WireType,
  sender: z.string().min(1),
  ts: z.string().min(1),
  payload: AnyPayload,
  // An agent's signature travels with its Wire; a malformed one is dropped, not the Wire.
  sig: Signature.optional().catch(undefined),
});

/** `seconds.nanos` → ISO 8601 (HCS carries no receive time: consensus time stands in). */
export function isoOfConsensus(timestamp: string): string {
  const [s = '0', n = '0'] = timestamp.split('.');
  return new Date(Number(s) * 1000 + Math.floor(Number(n.padEnd(9, '0')) / 1e6)).toISOString();
}

/**
 * Decodes one whole HCS message into a Wire with its anchor, or null. A
 * private payload's sealed envelope (src/private/) decodes with `sealed` set
 * and an empty payload, for `openSealed` to open.
 */
export function decodeMessage(
  bytes: Uint8Array,
  topicId: string,
  sequenceNumber: number,
  consensusTimestamp: string,
): ProjectedWire | null {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  return decodeJson(json, topicId, sequenceNumber, consensusTimestamp);
}

function decodeJson(
  json: unknown,
  topicId: string,
  sequenceNumber: number,
  consensusTimestamp: string,
): ProjectedWire | null {
  const sealed = encOf(json) ? (json as Record<string, unknown>) : null;
  const parsed = HcsWire.safeParse(sealed ? { ...sealed, payload: {} } : json);
  if (!parsed.success) return null;
  const w = parsed.data;
  return {
    ...draftOf(w),
    stream_seq: w.stream_seq,
    received_at: isoOfConsensus(consensusTimestamp),
    hcs_topic_id: topicId,
    hcs_sequence_number: sequenceNumber,
    consensus_timestamp: consensusTimestamp,
    ...(sealed ? { sealed } : {}),
  };
}

/** A sealed envelope in the clear (`envelopeOpener`, src/private/sealer.ts); throws when it cannot. */
export type EnvelopeOpener = (json: unknown, where: string) => Promise<unknown>;

/**
 * `source` with every private payload opened (the Rebuilder's sources: the
 * mirror, and whatever stands for a log-mode topic's leaves). A rebuild with
 * the key is exact; without it this throws, naming the message.
 */
export function openSealed(source: RebuildSource, open: EnvelopeOpener): RebuildSource {
  return {
    async page(topic, cursor) {
      const page = await source.page(topic, cursor);
      const wires = await Promise.all(
        page.wires.map(async (w) => {
          if (!w.sealed) return w;
          const seq = w.hcs_sequence_number ?? 0;
          const where = `${topic} message ${seq}`;
          const opened = decodeJson(
            await open(w.sealed, where),
            topic,
            seq,
            w.consensus_timestamp ?? '',
          );
          if (!opened || opened.sealed)
            throw new Error(`${where}: the opened envelope is not a Wire`);
          return opened;
        }),
      );
      return { ...page, wires };
    },
  };
}

/** Wires per page at most once a log-mode checkpoint's leaves have been added. */
const LOG_PAGE_WIRES = 1000;

/**
 * Reads topics from the mirror node REST API, reassembling chunked messages
 * (a chunked Wire is identified by its last chunk, as the anchoring loop
 * records it). With `log` (the deployment's log key and R2 archive), a
 * checkpoint of a log-mode topic stands for its new leaves, read from the
 * archive and verified against it (`archive-verify.ts`).
 */
export function mirrorSource(
  mirrorUrl: string,
  pageSize = 100,
  log: ArchiveCheck | null = null,
  pageWires = LOG_PAGE_WIRES,
): RebuildSource {
  return {
    async page(topic, cursor) {
      const assembler = new ChunkAssembler(cursor.pending);
      const page = await readTopicMessages(mirrorUrl, topic, cursor.after, pageSize);
      let after = cursor.after;
      let logCursor = cursor.log;
      const wires: ProjectedWire[] = [];
      const logged = new Set<ProjectedWire>();
      const txIds = new Map<ProjectedWire, string>();
      const refused: ArchiveRefusal[] = [];
      let skipped = 0;
      const undecoded: number[] = [];
      let read = 0;
      for (const m of page.messages) {
        // A checkpoint can stand for many Wires: memory holds a page, not the history.
        if (wires.length >= pageWires) break;
        read++;
        after = m.sequence_number;
        const whole = assembler.add(m);
        if (!whole) continue;
        const { sequence_number: seq, consensus_timestamp: ts } = whole.last;
        const wire = decodeMessage(whole.bytes, topic, seq, ts);
        const expanded =
          wire || !log ? null : await expandCheckpoint(log, topic, whole.bytes, seq, ts, logCursor);
        if (wire) {
          wires.push(wire);
          if (whole.transactionId !== null) txIds.set(wire, whole.transactionId);
        } else if (expanded) {
          wires.push(...expanded.wires);
          for (const w of expanded.wires) logged.add(w);
          refused.push(...expanded.refused);
          logCursor = expanded.cursor;
        } else {
          skipped++;
          undecoded.push(seq);
        }
      }
      return {
        wires,
        messages: read,
        skipped,
        undecoded,
        cursor: {
          after,
          pending: assembler.pending(),
          ...(logCursor ? { log: logCursor } : {}),
        },
        more: read < page.messages.length || (page.hasMore && page.messages.length > 0),
        refused,
        logged,
        txIds,
      };
    },
  };
}
