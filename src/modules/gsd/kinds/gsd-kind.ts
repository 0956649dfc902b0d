import { defineKind } from '../../../kernel/kind';
import { GSD_KIND } from '../catalogue';
import { gsdDecider } from './gsd-decider';

/** `gsd:<project_id>`: one project's event log (the seed's events.json), in order. */
export const gsdKind = defineKind({
  name: GSD_KIND,
  version: 1,
  config: () => null,
  decider: gsdDecider,
});
