import { Hono } from 'hono';
import type { AppEnv } from '../../api/app-env';
import type { ProtocolModule } from '../../kernel/module';
import { HEIMDALL_DERIVED_IDS, HEIMDALL_TYPES } from './catalogue';
import { HEIMDALL_OPERATIONS } from './openapi';
import { HEIMDALL_PROBLEMS } from './problems';
import { claimRoutes } from './routes/claims';
import { surfacesKind } from './surfaces/kind';

const routes = new Hono<AppEnv>();
routes.route('/', claimRoutes);

/**
 * Seed 001 (Heimdall): surface claims through the collision gate
 * (`surfaces:<workspace>` streams) and the token-frugal workspace
 * (`workspace:<workspace>`), under `/v1/workspaces/{ws}/…`.
 */
export const heimdall: ProtocolModule = {
  name: 'heimdall',
  kinds: [surfacesKind],
  types: HEIMDALL_TYPES,
  derivedIds: HEIMDALL_DERIVED_IDS,
  problems: HEIMDALL_PROBLEMS,
  initialStatus: { surfaces: 'active', workspace: 'active' },
  routes,
  operations: HEIMDALL_OPERATIONS,
};
