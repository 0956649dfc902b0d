export { authenticate } from './authenticate';
export type { Principal, Scope } from './claims';
export { hasScope, isCoordinator, mayTouchStream, SCOPES } from './claims';
export { tokenGuards } from './guard-append';
export {
  principalOf,
  requireAllStreams,
  requireReadAll,
  requireScope,
  requireStream,
} from './require';
export { authRoutes } from './routes';
