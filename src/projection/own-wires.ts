import type { RebuildSource } from './mirror-source';
import type { ProjectedWire } from './types';

/**
 * Where a topic holds a Wire: its HCS sequence number, or null while
 * unconfirmed, with the transaction ids it was sent under (none yet, or in
 * log mode).
 */
export interface HeldAt {
  seq: number | null;
  txIds: readonly string[];
}

/** What the coordinator's topics recorded of the Wires on an HCS topic. */
export interface TopicRecords {
  /**
   * Where the coordinator holds each of `wires` read from HCS topic `topicId`,
   * by `wireKey`; a Wire missing from the map was never taken. Null when no
   * topic of the coordinator's anchors on `topicId`: nobody can say.
   */
  held(topicId: string, wires: readonly ProjectedWire[]): Promise<Map<string, HeldAt> | null>;
  /** The Wires agents put on `topicId` at these sequence numbers that were ingested, as taken. */
  ingested(topicId: string, seqs: readonly number[]): Promise<ProjectedWire[]>;
}

export function wireKey(w: { stream_id: string; wire_id: string }): string {
  return `${w.stream_id}\n${w.wire_id}`;
}

/**
 * `source` with only the Wires the coordinator took: anyone may write to a
 * topic, and the listener refuses what it cannot prove (a forged offer, a
 * `system` sender, an unmapped payer, a Wire its stream refused), so a
 * rebuild must not project those as Wires, nor let a later copy of a Wire
 * rewrite the one anchored. A Wire not confirmed yet is taken only from a
 * message sent under the ids the topic holds for it: a copy someone posted
 * in the seconds before the topic's own reached the mirror is not it. The
 * others count as `skipped`. A Wire an agent
 * put there directly whose message is no whole Wire 1.1 envelope (no
 * `stream_seq`, another dialect) comes as the listener ingested it. A log
 * leaf read under a checkpoint of the log key is the coordinator's by that
 * signature, kept whatever checkpoint vouched for it.
 */
export function ownWires(source: RebuildSource, records: TopicRecords): RebuildSource {
  return {
    async page(topic, cursor) {
      const page = await source.page(topic, cursor);
      const undecoded = page.undecoded ?? [];
      const at = page.wires.length > 0 ? await records.held(topic, page.wires) : null;
      const wires =
        at === null
          ? page.wires
          : page.wires.filter((w) => {
              // Proven by a checkpoint of the log key: the coordinator's own.
              if (page.logged?.has(w)) return true;
              const held = at.get(wireKey(w));
              if (held === undefined) return false;
              if (held.seq !== null) return held.seq === w.hcs_sequence_number;
              const id = page.txIds?.get(w);
              return id !== undefined && held.txIds.includes(id);
            });
      const ingested = undecoded.length > 0 ? await records.ingested(topic, undecoded) : [];
      const dropped = page.wires.length - wires.length;
      return {
        ...page,
        wires: [...wires, ...ingested].sort(
          (a, b) => (a.hcs_sequence_number ?? 0) - (b.hcs_sequence_number ?? 0),
        ),
        skipped: page.skipped + dropped - ingested.length,
        undecoded: [],
      };
    },
  };
}
