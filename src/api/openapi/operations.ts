import * as z from 'zod';
import { type FailureCode, StreamId, WireId, WireInput } from '../../protocol';
import { TokenBody } from '../auth/routes';
import type { QueryShape } from '../query';
import { RebuildBody } from '../routes/admin-rebuild';
import { AlertsQuery, AnchorsQuery, ProofQuery, TopicBody } from '../routes/proof';
import { AgentsQuery } from '../routes/read-agents';
import { StreamsQuery } from '../routes/read-streams';
import { Freshness, Name } from '../routes/read-support';
import { TasksQuery } from '../routes/read-tasks';
import { WireQuery, WiresQuery } from '../routes/read-wires';
import { RoleFeedQuery, RoleFollowQuery } from '../routes/roles';
import { StreamFollowQuery, StreamPageQuery } from '../routes/streams';
import * as R from './responses';

/**
 * Every route of the API as the OpenAPI document describes it: the request
 * schemas are the ones the routes validate with (imported from them), the
 * answers are ./responses.ts. test/workers/api-contract.test.ts fails when
 * the app has a route this list lacks, or this list one the app lacks.
 */

export type Access = 'public' | 'bearer' | 'websocket';

export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** A WebSocket upgrade (101): no body, these frames instead. */
  frames?: { server: z.ZodType; client: z.ZodType };
  /** Default `application/json`. */
  contentType?: string;
  /** Names in the document's `components.headers`. */
  headers?: string[];
}

export interface Operation {
  method: 'get' | 'post' | 'put';
  /** OpenAPI form: `/v1/streams/{stream_id}/wires`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Scope the token needs (said in the description). */
  scope?: string;
  pathParams?: Record<string, z.ZodType>;
  query?: QueryShape;
  /** Request headers, by name in `components.parameters`. */
  headerParams?: string[];
  body?: { schema: z.ZodType; required: boolean; description?: string };
  /** Success answers by status. */
  answers: Record<number, Answer>;
  /** Problem types this operation may answer with (statuses from problem.ts). */
  problems: FailureCode[];
  /** A WebSocket upgrade: `101` plus the frames in the description. */
  websocket?: boolean;
}

const StreamIdParam = StreamId.meta({
  description: 'A stream id such as `project:kv-m02` or `task:T-1:attempt:1` (percent-encode `:`)',
});
const WireIdParam = WireId.meta({ description: 'A wire_id (unique within its stream)' });

/** Problems any authenticated route can answer with. */
const AUTH: FailureCode[] = ['unauthenticated', 'forbidden'];
/** Problems of reading a JSON body (src/api/read-json-body.ts). */
const BODY: FailureCode[] = [
  'unsupported-media-type',
  'envelope-too-large',
  'malformed-json',
  'json-too-deep',
];

const WS_DESCRIPTION = `A WebSocket (send \`Upgrade: websocket\`). Browsers authenticate with \`?ticket=\` (from \`POST /v1/tickets\`) or the subprotocols \`wirestream, wirestream.bearer.<token>\`; other clients with \`Authorization: Bearer\`.
Refusals (bad \`after_seq\`, too many subscribers, a missing upgrade) come as problem+json before any socket opens, so a plain GET hears why.

Server → client frames are JSON text: \`hello\`, \`wires\` (in order, gap-free), \`anchored\`, \`caught-up\`, \`pong\`, \`error\` (schema \`ServerFrame\`). Client → server: \`{"kind":"ack","seq":N}\` within \`ack_ms\` or every \`ack_every\` Wires, and \`{"kind":"ping"}\` (schema \`ClientFrame\`). A subscriber that leaves more than \`window\` Wires unacknowledged is closed with code 4008 and a reason naming \`after_seq=N\` to resume from.`;

const wsAnswer: Answer = {
  description: 'Switching Protocols: the WebSocket is open (frames: ServerFrame / ClientFrame)',
  frames: { server: R.ServerFrame, client: R.ClientFrame },
};

export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v1/streams/{stream_id}/wires',
    operationId: 'appendWire',
    tag: 'Streams',
    summary: 'Append a Wire to a stream',
    description:
      "Wire 1.1 (or 1.0, upgraded). Idempotent by `wire_id`, forever: sending the same Wire again answers 200 with the original receipt and `Idempotent-Replay: true`; the same id with other content is a 409. `stream_seq` in the body or `If-Match` make the append conditional (412 when the stream has moved on). `sender` must be the token's subject.",
    access: 'bearer',
    scope: 'append (claims: claim)',
    pathParams: { stream_id: StreamIdParam },
    headerParams: ['IfMatch'],
    body: { schema: WireInput, required: true, description: 'A Wire envelope' },
    answers: {
      201: {
        description: 'Stored (a 201 means durable)',
        schema: R.Receipt,
        headers: ['ETag', 'Location'],
      },
      200: {
        description: 'A replay: this Wire was stored before; the original receipt',
        schema: R.Receipt,
        headers: ['ETag', 'Location', 'IdempotentReplay'],
      },
    },
    problems: [
      ...AUTH,
      'invalid-stream-id',
      'invalid-header',
      ...BODY,
      'invalid-wire',
      'stream-id-mismatch',
      'secret-in-payload',
      'rate-limited',
      'wire-id-conflict',
      'stale-stream',
      'task-already-claimed',
      'task-not-available',
      'stale-fencing-token',
      'not-lease-holder',
      'insufficient-capacity',
      'invalid-transition',
      'coordination-unavailable',
    ],
  },
  {
    method: 'get',
    path: '/v1/streams/{stream_id}/wires',
    operationId: 'readStream',
    tag: 'Streams',
    summary: "Page through a stream's Wires in order",
    access: 'bearer',
    scope: 'read',
    pathParams: { stream_id: StreamIdParam },
    query: StreamPageQuery,
    answers: { 200: { description: 'A page', schema: R.StreamPage, headers: ['ETag'] } },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/streams/{stream_id}/ws',
    operationId: 'followStream',
    tag: 'Streams',
    summary: 'Follow a stream live over WebSocket',
    description: WS_DESCRIPTION,
    access: 'websocket',
    scope: 'read',
    pathParams: { stream_id: StreamIdParam },
    query: StreamFollowQuery,
    websocket: true,
    answers: { 101: wsAnswer },
    problems: [
      ...AUTH,
      'invalid-stream-id',
      'invalid-query',
      'invalid-header',
      'too-many-subscribers',
    ],
  },
  {
    method: 'get',
    path: '/v1/streams/{stream_id}',
    operationId: 'describeStream',
    tag: 'Streams',
    summary: 'Describe a stream: head, count, times',
    access: 'bearer',
    scope: 'read',
    pathParams: { stream_id: StreamIdParam },
    answers: { 200: { description: 'The stream', schema: R.StreamInfo, headers: ['ETag'] } },
    problems: [...AUTH, 'invalid-stream-id', 'not-found'],
  },
  {
    method: 'put',
    path: '/v1/streams/{stream_id}/topic',
    operationId: 'setStreamTopic',
    tag: 'Anchoring',
    summary: 'Anchor a stream on its own HCS topic, or on the shared one',
    access: 'bearer',
    scope: 'append',
    pathParams: { stream_id: StreamIdParam },
    body: { schema: TopicBody, required: true },
    answers: { 200: { description: 'The topic the stream now uses', schema: R.TopicMode } },
    problems: [...AUTH, 'invalid-stream-id', ...BODY, 'invalid-body'],
  },
  {
    method: 'get',
    path: '/v1/streams',
    operationId: 'listStreams',
    tag: 'Read models',
    summary: 'List streams (D1 read model stream_state)',
    access: 'bearer',
    scope: 'read',
    query: StreamsQuery,
    answers: { 200: readAnswer('A page of streams', R.StreamList) },
    problems: [...AUTH, 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/roles/{role}/wires',
    operationId: 'readRoleFeed',
    tag: 'Coordination',
    summary: "Page through a role's feed of task offers (`role:<role>`)",
    description:
      'The stream `role:<role>`: every `task.available` for the role, copied there by the task streams. Pages like a stream: `after_seq` in, `next_after_seq` out (`after` / `next_after` are the older names, still served).',
    access: 'bearer',
    scope: 'read',
    pathParams: { role: Name.meta({ description: 'A role such as `developer`' }) },
    query: RoleFeedQuery,
    answers: { 200: { description: 'A page', schema: R.RoleFeedPage, headers: ['ETag'] } },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/roles/{role}/ws',
    operationId: 'followRoleFeed',
    tag: 'Coordination',
    summary: "Follow a role's feed live over WebSocket",
    description: WS_DESCRIPTION,
    access: 'websocket',
    scope: 'read',
    pathParams: { role: Name },
    query: RoleFollowQuery,
    websocket: true,
    answers: { 101: wsAnswer },
    problems: [
      ...AUTH,
      'invalid-stream-id',
      'invalid-query',
      'invalid-header',
      'too-many-subscribers',
    ],
  },
  {
    method: 'get',
    path: '/v1/coordination/{stream_id}',
    operationId: 'coordinationState',
    tag: 'Coordination',
    summary: "What a stream's decider holds (lease, capacity, health, dependencies)",
    access: 'bearer',
    scope: 'read',
    pathParams: { stream_id: StreamIdParam },
    answers: { 200: { description: 'The decision state', schema: R.CoordinationView } },
    problems: [...AUTH, 'invalid-stream-id'],
  },
  {
    method: 'post',
    path: '/v1/tokens',
    operationId: 'issueToken',
    tag: 'Auth',
    summary: 'Mint a bearer token (admin)',
    access: 'bearer',
    scope: 'admin',
    body: { schema: TokenBody, required: true },
    answers: {
      201: { description: 'The token', schema: R.IssuedToken, headers: ['CacheControl'] },
    },
    problems: [...AUTH, ...BODY, 'invalid-body'],
  },
  {
    method: 'post',
    path: '/v1/tickets',
    operationId: 'issueTicket',
    tag: 'Auth',
    summary: 'Mint a one-use WebSocket ticket (for browsers)',
    access: 'bearer',
    scope: 'read',
    answers: {
      201: { description: 'The ticket', schema: R.IssuedTicket, headers: ['CacheControl'] },
    },
    problems: AUTH,
  },
  {
    method: 'get',
    path: '/v1/wires/{wire_id}/proof',
    operationId: 'wireProof',
    tag: 'Anchoring',
    summary: 'Where a Wire sits on HCS, with links to check it',
    access: 'bearer',
    scope: 'read',
    pathParams: { wire_id: WireIdParam },
    query: ProofQuery,
    answers: { 200: { description: 'The proof', schema: R.Proof } },
    problems: [...AUTH, 'invalid-query', 'ambiguous-wire-id', 'not-found'],
  },
  {
    method: 'get',
    path: '/v1/topics',
    operationId: 'listTopics',
    tag: 'Anchoring',
    summary: 'Every HCS topic and its anchoring progress',
    access: 'bearer',
    scope: 'read (a token without stream prefixes)',
    answers: { 200: { description: 'The topics', schema: R.Topics } },
    problems: AUTH,
  },
  {
    method: 'get',
    path: '/v1/topics/{hcs_topic_id}/anchors',
    operationId: 'topicAnchors',
    tag: 'Anchoring',
    summary: 'The Wires anchored on a topic, with their exact messages',
    access: 'bearer',
    scope: 'read (a token without stream prefixes)',
    pathParams: { hcs_topic_id: z.string().meta({ description: 'An HCS topic id, `0.0.N`' }) },
    query: AnchorsQuery,
    answers: { 200: { description: 'A page of anchors', schema: R.Anchors } },
    problems: [...AUTH, 'invalid-query', 'not-found'],
  },
  {
    method: 'get',
    path: '/v1/alerts',
    operationId: 'listAlerts',
    tag: 'Anchoring',
    summary: 'What the listener found wrong on the topics (and ingested)',
    access: 'bearer',
    scope: 'read (a token without stream prefixes)',
    query: AlertsQuery,
    answers: { 200: { description: 'A page of alerts', schema: R.Alerts } },
    problems: [...AUTH, 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/tasks',
    operationId: 'listTasks',
    tag: 'Read models',
    summary: 'Task attempts (D1 read model task_run_state)',
    access: 'bearer',
    scope: 'read',
    query: TasksQuery,
    answers: { 200: readAnswer('A page of task attempts', R.TaskList) },
    problems: [...AUTH, 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/tasks/{task_id}',
    operationId: 'getTask',
    tag: 'Read models',
    summary: 'Every attempt of one task, current last',
    access: 'bearer',
    scope: 'read',
    pathParams: { task_id: Name },
    query: Freshness,
    answers: { 200: readAnswer('The task', R.TaskDetail) },
    problems: [...AUTH, 'invalid-query', 'not-found'],
  },
  {
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    tag: 'Read models',
    summary: 'Agents (D1 read model agent_runtime_state)',
    access: 'bearer',
    scope: 'read',
    query: AgentsQuery,
    answers: { 200: readAnswer('A page of agents', R.AgentList) },
    problems: [...AUTH, 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/agents/{agent_id}',
    operationId: 'getAgent',
    tag: 'Read models',
    summary: 'One agent (`quinn-07` or `agent:quinn-07`)',
    access: 'bearer',
    scope: 'read',
    pathParams: { agent_id: Name },
    query: Freshness,
    answers: { 200: readAnswer('The agent', R.Agent) },
    problems: [...AUTH, 'invalid-query', 'not-found'],
  },
  {
    method: 'get',
    path: '/v1/wires',
    operationId: 'searchWires',
    tag: 'Read models',
    summary: 'Search every projected Wire (D1 read model wire_events)',
    access: 'bearer',
    scope: 'read',
    query: WiresQuery,
    answers: { 200: readAnswer('A page of Wires', R.WireList) },
    problems: [...AUTH, 'invalid-query'],
  },
  {
    method: 'get',
    path: '/v1/wires/{wire_id}',
    operationId: 'getWire',
    tag: 'Read models',
    summary: 'One Wire with its causal chain, both ways',
    access: 'bearer',
    scope: 'read',
    pathParams: { wire_id: WireIdParam },
    query: WireQuery,
    answers: { 200: readAnswer('The Wire', R.WireDetail) },
    problems: [...AUTH, 'invalid-query', 'ambiguous-wire-id', 'not-found'],
  },
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
    answers: {
      200: {
        description: 'Progress lines (NDJSON), until the rebuild ends',
        schema: R.RebuildLine,
        contentType: 'application/x-ndjson',
        headers: ['RebuildId', 'CacheControl'],
      },
    },
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
    answers: {
      200: {
        description: 'Progress lines (NDJSON), until the rebuild ends',
        schema: R.RebuildLine,
        contentType: 'application/x-ndjson',
        headers: ['RebuildId', 'CacheControl'],
      },
    },
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

/** A D1 read: JSON with the freshness headers (src/api/routes/read-support.ts). */
function readAnswer(description: string, schema: z.ZodType): Answer {
  return {
    description,
    schema,
    headers: ['CacheControl', 'Watermark', 'WatermarkReceivedAt', 'WaitFor', 'StaleModels'],
  };
}
