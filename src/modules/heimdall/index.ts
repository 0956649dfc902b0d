import { defineModule } from '../../kernel/module';
import { HEIMDALL_DERIVED_IDS, HEIMDALL_TYPES } from './catalogue';
import { HEIMDALL_PROBLEMS } from './problems';
import { heimdallState } from './read-models/heimdall-state';
import { claimRoutes } from './routes/claims';
import { documentRoutes } from './routes/documents';
import { ledgerRoutes } from './routes/ledger';
import { messageRoutes } from './routes/messages';
import { planningRoutes } from './routes/planning';
import { workspaceRoutes } from './routes/workspace';
import { surfacesKind } from './surfaces/kind';
import { DECISION_LOG_PORT, DECISION_PORT_ID, decisionLogPort } from './workspace/decision-port';
import { workspaceKind } from './workspace/kind';

/**
 * Seed 001 (Heimdall): surface claims through the collision gate
 * (`surfaces:<workspace>` streams) and the token-frugal workspace
 * (`workspace:<workspace>`), under `/v1/workspaces/{ws}/…`.
 */
export const heimdall = defineModule({
  name: 'heimdall',
  kinds: [surfacesKind, workspaceKind],
  types: HEIMDALL_TYPES,
  derivedIds: [...HEIMDALL_DERIVED_IDS, DECISION_PORT_ID],
  problems: HEIMDALL_PROBLEMS,
  readModels: [heimdallState],
  initialStatus: { surfaces: 'active', workspace: 'active' },
  routes: [
    claimRoutes,
    workspaceRoutes,
    ledgerRoutes,
    messageRoutes,
    documentRoutes,
    planningRoutes,
  ],
  ports: { [DECISION_LOG_PORT]: decisionLogPort },
});
