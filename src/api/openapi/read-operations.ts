import * as z from 'zod';
import { RebuildBody } from '../routes/admin-rebuild';
import { StreamsQuery } from '../routes/read-streams';
import { WireQuery, WiresQuery } from '../routes/read-wires';
import {
  AUTH,
  BODY,
  type Operation,
  readAnswer,
  readOperation,
  readScoped,
  WireIdParam,
} from './operation';
import * as R from './read-responses';

/** The D1 read models, the admin rebuild and the public documents. */

/** A rebuild's progress, as both the start and the follow stream it. */
const REBUILD_LINES = {
  description: 'Progress lines (NDJSON), until the rebuild ends',
  schema: R.RebuildLine,
  contentType: 'application/x-ndjson',
  headers: ['RebuildId', 'CacheControl'],
};

export const READ_OPERATIONS: Operation[] = [
  readOperation({
    path: '/v1/streams',
    operationId: 'listStreams',
    summary: 'List streams (D1 read model stream_state)',
    query: StreamsQuery,
    answer: ['A page of streams', R.StreamList],
  }),
  readOperation({
    path: '/v1/wires',
    operationId: 'searchWires',
    summary: 'Search every projected Wire (D1 read model wire_events)',
    query: WiresQuery,
    answer: ['A page of Wires', R.WireList],
  }),
  readScoped('Read models', {
    path: '/v1/wires/{wire_id}',
    operationId: 'getWire',
    summary: 'One Wire with its causal chain, both ways',
    pathParams: { wire_id: WireIdParam },
    query: WireQuery,
    answer: readAnswer('The Wire', R.WireDetail),
    problems: [...AUTH, 'invalid-query', 'ambiguous-wire-id', 'not-found'],
  }),
  {
    method: 'post',
    path: '/v1/admin/rebuild',
    operationId: 'startRebuild',
    tag: 'Admin',
    summary: 'Rebuild the read models from HCS, streaming progress',
    description:
      'Replays the HCS topics from the mirror node into D1 (in the Rebuilder Durable Object). The answer streams one JSON object per line until the rebuild ends; hanging up does not stop it. No body (or `{}`) rebuilds every model.',
    access: 'bearer',
    scope: 'admin (a token without stream prefixes)',
    body: { schema: RebuildBody, required: false },
    answers: { 200: REBUILD_LINES },
    problems: [...AUTH, ...BODY, 'invalid-query', 'rebuild-running'],
  },
  {
    method: 'get',
    path: '/v1/admin/rebuild',
    operationId: 'followRebuild',
    tag: 'Admin',
    summary: 'Follow the running (or last) rebuild from its first line',
    access: 'bearer',
    scope: 'admin (a token without stream prefixes)',
    answers: { 200: REBUILD_LINES },
    problems: [...AUTH, 'not-found'],
  },
  {
    method: 'get',
    path: '/v1/admin/projection',
    operationId: 'projectionStatus',
    tag: 'Admin',
    summary: 'Read-model versions, status and the running rebuild',
    access: 'bearer',
    scope: 'admin (a token without stream prefixes)',
    answers: { 200: { description: 'The read models', schema: R.ProjectionStatus } },
    problems: AUTH,
  },
  {
    method: 'get',
    path: '/v1/schema/wire.json',
    operationId: 'wireSchema',
    tag: 'Schemas',
    summary: 'JSON Schema (2020-12) of the Wire envelope and every known payload',
    access: 'public',
    answers: {
      200: {
        description: 'The schema',
        schema: R.JsonSchemaDocument,
        contentType: 'application/schema+json',
      },
    },
    problems: [],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openApi',
    tag: 'Schemas',
    summary: 'This document (OpenAPI 3.1)',
    access: 'public',
    answers: { 200: { description: 'The document', schema: R.OpenApiDocument } },
    problems: [],
  },
  {
    method: 'get',
    path: '/problems/{code}',
    operationId: 'problemType',
    tag: 'Schemas',
    summary: 'What a problem `type` means: its status and title',
    access: 'public',
    pathParams: { code: z.string().meta({ description: 'A problem code such as `stale-stream`' }) },
    answers: { 200: { description: 'The problem type', schema: R.ProblemTypeInfo } },
    problems: ['not-found'],
  },
];
