import type { RebuildSource } from './mirror-source';
import type { ProjectedWire } from './types';

/**
 * Where the coordinator holds each of `wires` read from HCS topic `topicId`:
 * `"<stream_id>\n<wire_id>"` → its HCS sequence number (null while
 * unconfirmed); a Wire missing from the map was never taken. Null when no
 * topic of the coordinator's anchors on `topicId`: nobody can say.
 */
export type HeldWires = (
  topicId: string,
  wires: readonly ProjectedWire[],
) => Promise<Map<string, number | null> | null>;

export function wireKey(w: { stream_id: string; wire_id: string }): string {
  return `${w.stream_id}\n${w.wire_id}`;
}

/**
 * `source` with only the Wires the coordinator took: anyone may write to a
 * topic, and the listener refuses what it cannot prove (a forged offer, a
 * `system` sender, an unmapped payer, a Wire its stream refused), so a
 * rebuild must not project those as Wires, nor let a later copy of a Wire
 * rewrite the one anchored. The others count as `skipped`.
 */
export function ownWires(source: RebuildSource, held: HeldWires): RebuildSource {
  return {
    async page(topic, cursor) {
      const page = await source.page(topic, cursor);
      if (page.wires.length === 0) return page;
      const at = await held(topic, page.wires);
      if (at === null) return page;
      const wires = page.wires.filter((w) => {
        const seq = at.get(wireKey(w));
        return seq !== undefined && (seq === null || seq === w.hcs_sequence_number);
      });
      return { ...page, wires, skipped: page.skipped + page.wires.length - wires.length };
    },
  };
}
