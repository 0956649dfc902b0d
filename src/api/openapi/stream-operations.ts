import * as z from 'zod';
import { WireInput } from '../../protocol';
import { TicketBody, TokenBody } from '../auth/routes';
import {
  AlertsQuery,
  AnchorsQuery,
  ConsistencyQuery,
  ProofQuery,
  TopicBody,
} from '../routes/anchoring';
import { StreamFollowQuery, StreamPageQuery } from '../routes/streams';
import * as Anchoring from './anchoring-responses';
import {
  type Answer,
  AUTH,
  BODY,
  type Operation,
  readScoped,
  StreamIdParam,
  WireIdParam,
} from './operation';
import * as R from './responses';

/** The stream, auth and anchoring routes (a module's own routes are in its folder). */

const WS_DESCRIPTION = `A WebSocket (send \`Upgrade: websocket\`). Browsers authenticate with \`?ticket=\` (from \`POST /v1/tickets\`) or the subprotocols \`wirestream, wirestream.bearer.<token>\`; other clients with \`Authorization: Bearer\`.
Refusals (bad \`after_seq\`, too many subscribers, a missing upgrade) come as problem+json before any socket opens, so a plain GET hears why.

Server → client frames are JSON text: \`hello\`, \`wires\` (in order, gap-free), \`anchored\`, \`caught-up\`, \`pong\`, \`error\` (schema \`ServerFrame\`). Client → server: \`{"kind":"ack","seq":N}\` within \`ack_ms\` or every \`ack_every\` Wires, and \`{"kind":"ping"}\` (schema \`ClientFrame\`). A subscriber that leaves more than \`window\` Wires unacknowledged is closed with code 4008 and a reason naming \`after_seq=N\` to resume from.`;

const wsAnswer: Answer = {
  description: 'Switching Protocols: the WebSocket is open (frames: ServerFrame / ClientFrame)',
  frames: { server: R.ServerFrame, client: R.ClientFrame },
};

const TopicIdParam = z.string().meta({ description: 'An HCS topic id, `0.0.N`' });

/**
 * A `GET` on the topics and what the listener found (not a stream's, so for
 * a token without stream prefixes): under `/v1/topics/{hcs_topic_id}` it
 * names a topic (404 when unknown); a query can be invalid.
 */
function anchoringRead(
  o: Pick<Operation, 'path' | 'operationId' | 'summary' | 'description' | 'query'> & {
    answer: [description: string, schema: z.ZodType];
  },
): Operation {
  const { answer, query, ...head } = o;
  const onTopic = o.path.startsWith('/v1/topics/{hcs_topic_id}');
  return {
    method: 'get',
    ...head,
    tag: 'Anchoring',
    access: 'bearer',
    scope: onTopic ? 'read (a token without stream prefixes)' : 'read',
    ...(onTopic ? { pathParams: { hcs_topic_id: TopicIdParam } } : {}),
    ...(query ? { query } : {}),
    answers: { 200: { description: answer[0], schema: answer[1] } },
    problems: [
      ...AUTH,
      ...(query ? (['invalid-query'] as const) : []),
      ...(onTopic ? (['not-found'] as const) : []),
    ],
  };
}

/** What every WebSocket follow route has in common: access, frames, refusals. */
export function followOperation(
  head: Pick<Operation, 'path' | 'operationId' | 'tag' | 'summary'>,
  pathParams: Operation['pathParams'],
  query: Operation['query'],
): Operation {
  return {
    method: 'get',
    ...head,
    description: WS_DESCRIPTION,
    access: 'websocket',
    scope: 'read',
    pathParams,
    query,
    websocket: true,
    answers: { 101: wsAnswer },
    problems: [
      ...AUTH,
      'invalid-stream-id',
      'invalid-query',
      'invalid-header',
      'too-many-subscribers',
    ],
  };
}

export const STREAM_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v1/streams/{stream_id}/wires',
    operationId: 'appendWire',
    tag: 'Streams',
    summary: 'Append a Wire to a stream',
    description:
      'Wire 1.1 (or 1.0, upgraded). Idempotent by `wire_id`, forever: sending the same Wire again answers 200 with the original receipt and `Idempotent-Replay: true`; the same id with other content is a 409. `stream_seq` in the body or `If-Match` make the append conditional (412 when the stream has moved on). `sender` must be the token\'s subject. Once the sender (an agent) has registered a signing key (`agent.key.registered` on `agent:<id>`), every Wire it posts must carry `sig` {kid, alg: "Ed25519", value, salt?}: an Ed25519 signature over the RFC 8785 JSON of wire, wire_id, stream_id, correlation_id, causation_id, type, sender, ts and payload — or, with `salt` (32 random bytes, base64url), payload_commitment = base64url(SHA-256(salt ‖ RFC 8785 JSON of payload)) in place of payload, the form a private project\'s Wires require (403 `signature-required` / `signature-invalid` otherwise).',
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
      'signature-required',
      'signature-invalid',
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
      'private-payloads-unavailable',
    ],
  },
  readScoped('Streams', {
    path: '/v1/streams/{stream_id}/wires',
    operationId: 'readStream',
    summary: "Page through a stream's Wires in order",
    pathParams: { stream_id: StreamIdParam },
    query: StreamPageQuery,
    answer: { description: 'A page', schema: R.StreamPage, headers: ['ETag'] },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query'],
  }),
  followOperation(
    {
      path: '/v1/streams/{stream_id}/ws',
      operationId: 'followStream',
      tag: 'Streams',
      summary: 'Follow a stream live over WebSocket',
    },
    { stream_id: StreamIdParam },
    StreamFollowQuery,
  ),
  readScoped('Streams', {
    path: '/v1/streams/{stream_id}',
    operationId: 'describeStream',
    summary: 'Describe a stream: head, count, times',
    pathParams: { stream_id: StreamIdParam },
    answer: { description: 'The stream', schema: R.StreamInfo, headers: ['ETag'] },
    problems: [...AUTH, 'invalid-stream-id', 'not-found'],
  }),
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
    answers: { 200: { description: 'The topic the stream now uses', schema: Anchoring.TopicMode } },
    problems: [...AUTH, 'invalid-stream-id', ...BODY, 'invalid-body'],
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
    body: {
      schema: TicketBody,
      required: false,
      description: 'No body, or an empty JSON object',
    },
    answers: {
      201: { description: 'The ticket', schema: R.IssuedTicket, headers: ['CacheControl'] },
    },
    problems: [...AUTH, ...BODY, 'invalid-body'],
  },
  readScoped('Anchoring', {
    path: '/v1/wires/{wire_id}/proof',
    operationId: 'wireProof',
    summary: 'Where a Wire sits on HCS, with links to check it',
    pathParams: { wire_id: WireIdParam },
    query: ProofQuery,
    answer: { description: 'The proof', schema: Anchoring.Proof },
    problems: [...AUTH, 'invalid-query', 'ambiguous-wire-id', 'not-found'],
  }),
  anchoringRead({
    path: '/v1/topics',
    operationId: 'listTopics',
    summary: 'Every HCS topic and its anchoring progress',
    description:
      "A token limited to stream prefixes sees the topics of the streams it may read: a project's (`project.<id>` for `project:<id>`) and a stream's own (`stream.<stream_id>`); shared topics (a role's, `default`) are left out.",
    answer: ['The topics', Anchoring.Topics],
  }),
  anchoringRead({
    path: '/v1/topics/{hcs_topic_id}/anchors',
    operationId: 'topicAnchors',
    summary: 'The Wires anchored on a topic, with their exact messages',
    description:
      'A page ends after a whole HCS message, so a log-mode checkpoint and every Wire it anchors are on one page (a page may hold a few more than `limit`).',
    query: AnchorsQuery,
    answer: ['A page of anchors', Anchoring.Anchors],
  }),
  anchoringRead({
    path: '/v1/topics/{hcs_topic_id}/log/consistency',
    operationId: 'logConsistency',
    summary: "A consistency proof between two of a log-mode topic's checkpoints",
    description:
      'Log mode (issue 31): `from` and `to` are tree sizes of checkpoints confirmed on HCS; the answer holds both signed checkpoints, their HCS anchors and the RFC 9162 consistency path.',
    query: ConsistencyQuery,
    answer: ['The consistency proof', Anchoring.LogConsistency],
  }),
  anchoringRead({
    path: '/v1/alerts',
    operationId: 'listAlerts',
    summary: 'What the listener found wrong on the topics (and ingested)',
    query: AlertsQuery,
    answer: ['A page of alerts', Anchoring.Alerts],
  }),
];
