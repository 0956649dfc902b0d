import { MODULE_OPERATIONS } from '../../modules/openapi';
import { MCP_OPERATIONS } from '../mcp/haids';
import type { Operation } from './operation';
import { PRIVATE_OPERATIONS } from './private-operations';
import { READ_OPERATIONS } from './read-operations';
import { STREAM_OPERATIONS } from './stream-operations';
import { TOPIC_LOG_OPERATIONS } from './topic-log-operations';

/**
 * Every route of the API as the OpenAPI document describes it: the request
 * schemas are the ones the routes validate with (imported from them), the
 * answers are ./responses.ts, ./anchoring-responses.ts and ./read-responses.ts
 * (a module's, in its own `openapi.ts`). test/workers/api-contract.test.ts fails when
 * the app has a route this list lacks, or this list one the app lacks.
 */
export const OPERATIONS: Operation[] = [
  ...STREAM_OPERATIONS,
  ...TOPIC_LOG_OPERATIONS,
  ...READ_OPERATIONS,
  ...PRIVATE_OPERATIONS,
  ...MCP_OPERATIONS,
  // Each protocol module describes its own routes (src/modules/openapi.ts).
  ...MODULE_OPERATIONS,
];

export type { Answer, Operation } from './operation';
