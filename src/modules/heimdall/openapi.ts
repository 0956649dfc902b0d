import type { Operation } from '../../api/module-kit';
import { CLAIM_OPERATIONS } from './openapi-claims';
import { DOCUMENT_OPERATIONS } from './openapi-documents';
import { STATE_OPERATIONS } from './openapi-state';

/**
 * Seed 001's routes as the OpenAPI document describes them;
 * test/workers/api-contract.test.ts calls each one.
 */
export const HEIMDALL_OPERATIONS: Operation[] = [
  ...CLAIM_OPERATIONS,
  ...STATE_OPERATIONS,
  ...DOCUMENT_OPERATIONS,
];
