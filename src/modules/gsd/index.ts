import { defineModule } from '../../kernel/module';
import { DEPENDENCY_ID, GSD_PREFIXES, GSD_TYPES } from './catalogue';
import { gsdKind } from './kinds/gsd-kind';
import { GSD_PROBLEMS } from './problems';
import { events } from './routes/events';
import { follow } from './routes/follow';
import { projectState } from './routes/state';
import { webhooks } from './routes/webhooks';

/**
 * Seed 004, GSD's Agent Communication Protocol: colon events on a project's
 * log (`gsd:<project_id>`), the events.json view with filters, long poll and
 * a live follow, file claims, dependency release, decisions, checkpoints and
 * the seed's event handlers. `/v1/projects/{project_id}…`.
 */
export const gsd = defineModule({
  name: 'gsd',
  kinds: [gsdKind],
  types: GSD_TYPES,
  typePrefixes: GSD_PREFIXES,
  derivedIds: [DEPENDENCY_ID, 'gsdk', 'gsdclaim', 'gsdunclaim'],
  problems: GSD_PROBLEMS,
  routes: [events, follow, projectState, webhooks],
});
