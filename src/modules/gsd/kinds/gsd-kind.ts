import { defineUnconfiguredKind } from '../../../kernel/kind';
import { GSD_KIND } from '../catalogue';
import { cancelFile, reserveFile } from './file-claims';
import { gsdDecider } from './gsd-decider';

/**
 * `gsd:<project_id>`: one project's event log (the seed's events.json), in
 * order. Each project anchors to its own HCS topic, `gsd.<project_id>`, so
 * its log can be read back (and its state rebuilt) from that topic alone.
 */
export const gsdKind = defineUnconfiguredKind({
  name: GSD_KIND,
  // 2: the decision log and alerts keep their events' ids, not the events.
  version: 2,
  decider: gsdDecider,
  hooks: {
    reserve: reserveFile,
    cancel: cancelFile,
    topicGroup: {
      keyOf: (wire) => wire.stream_id.slice(GSD_KIND.length + 1),
      topicOf: (project) => `${GSD_KIND}.${project}`,
    },
  },
});
