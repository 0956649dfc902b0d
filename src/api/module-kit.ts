/**
 * The HTTP seam for protocol modules: everything a module's routes and its
 * OpenAPI operations may use from the API layer — the app's env type, auth
 * guards, body and query parsing, problem+json, read-model paging and the
 * shared response schemas. `src/modules/` imports from `src/api/` through this
 * file only (biome.json's `noRestrictedImports` for src/modules enforces it), so
 * what the API offers modules is one list, and the API's inner files can move.
 */
export type { AppEnv } from './app-env';
export { hasScope, isCoordinator, mayTouchStream } from './auth/claims';
export { tokenGuards } from './auth/guard-append';
export { principalOf, requireScope, requireStream } from './auth/require';
export { bodyProblem } from './body-problem';
export { followSocket } from './limits/subscriber-cap';
export type { Operation } from './openapi/operation';
export { problem } from './problem';
export {
  AfterSeq,
  intQuery,
  limitQuery,
  optionalIntQuery,
  parseQuery,
  type QueryShape,
} from './query';
export { readJsonBody } from './read-json-body';
export { listPage, readOne } from './routes/read-page';
export { answer, Freshness, Name, oneQuery, Paging, withJson } from './routes/read-support';
export { serveStatic, staticFile } from './routes/static-files';
