export { authenticate } from './authenticate';
export type { Principal, Scope } from './claims';
export { hasScope, isCoordinator, SCOPES } from './claims';
export { guardAppend } from './guard-append';
export { principalOf, requireScope, requireStream } from './require';
export { authRoutes } from './routes';
