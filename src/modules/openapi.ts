import type { Operation } from '../api/module-kit';
import { COORDINATION_OPERATIONS } from './coordination/openapi';
import { GSD_OPERATIONS } from './gsd/openapi';
import { HEIMDALL_OPERATIONS } from './heimdall/openapi';
import { RUNTIME_OPERATIONS } from './runtime/openapi';
import { WRITER_OPERATIONS } from './writer/openapi';

/**
 * How the OpenAPI document describes each module's routes, one line per
 * module (a module's own `openapi.ts`; test/workers/api-contract.test.ts calls
 * each). Not part of the module definitions: only the build
 * (tools/build-openapi.mjs, through src/api/openapi/operations.ts) and the
 * tests import this, so the Worker neither bundles nor builds these
 * descriptions at start (BENCHMARKS.md, bundle size).
 */
export const MODULE_OPERATIONS: readonly Operation[] = [
  ...COORDINATION_OPERATIONS,
  ...HEIMDALL_OPERATIONS,
  ...WRITER_OPERATIONS,
  ...RUNTIME_OPERATIONS,
  ...GSD_OPERATIONS,
];
