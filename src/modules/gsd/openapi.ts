import * as z from 'zod';
import { AUTH, BODY, type Operation, readScoped, SIGNED } from '../../api/openapi-kit';
import { GsdEvent as GsdEventSchema } from '../../protocol';
import { EndpointName } from './payloads';
import { EventsQuery } from './routes/events';
import { FollowQuery } from './routes/follow';
import { ProjectId } from './routes/project';
import { DeliveriesQuery, RotateBody } from './routes/webhooks';

/**
 * Seed 004's routes as the OpenAPI document describes them.
 * test/workers/api-contract.test.ts calls each one.
 */

const projectParam = {
  project_id: ProjectId.meta({
    description: 'A project id such as `auth-service` (stream `gsd:<id>`)',
  }),
};

const Event = z.looseObject({ type: z.string(), timestamp: z.string() }).meta({
  description: 'A colon event as sent, plus `id` (its event number) unless it carries its own',
});

const EventsView = z.object({
  events: z.array(Event),
  lastEventId: z.int().min(0),
  retentionPolicy: z.string(),
});

const Accepted = z.object({
  events: z.array(z.object({ id: z.int().min(1), wire_id: z.string() })),
  lastEventId: z.int().min(1),
});

const ProjectView = z.looseObject({
  project_id: z.string(),
  stream_id: z.string(),
  lastEventId: z.int().min(0),
  plans: z.record(z.string(), z.unknown()),
  claims: z.array(z.unknown()),
  checkpoints: z.array(z.unknown()),
  decisions: z.array(z.unknown()),
  sharedContext: z.record(z.string(), z.unknown()),
  alerts: z.array(z.unknown()),
  config: z.looseObject({ retentionPolicy: z.string() }),
});

const Decisions = z.object({ decisions: z.array(z.unknown()), lastEventId: z.int().min(0) });
const ConfigAnswer = z.object({
  event_handlers: z.record(z.string(), z.array(z.string())).nullable(),
  retentionPolicy: z.string(),
  id: z.int().min(1),
});

const EventsBody = z.union([GsdEventSchema, z.array(GsdEventSchema).min(1).max(100)]);

const TAG = 'GSD agent events';

const EndpointId = z
  .string()
  .meta({ description: 'The endpoint id: the name of its `custom:<name>` handler' });
const Endpoint = z.looseObject({ id: z.string(), url: z.string() });
const Unrouted = z
  .object({
    endpoint_id: z.string(),
    skipped: z.int().meta({ description: 'Messages not sent: no endpoint had this id then' }),
    first_at: z.string(),
    last_at: z.string(),
    last_event_type: z.string(),
  })
  .meta({
    description:
      'A `custom:<id>` handler fired while no endpoint was registered under `<id>`: its messages are counted, not kept (an endpoint registered later is not sent them); registering `<id>` clears the entry',
  });
const EndpointBody = z.looseObject({
  id: EndpointName.meta({
    description: 'The handler name (`slack-notify` for `custom:slack-notify`), required',
  }),
  url: z
    .string()
    .meta({ description: 'https (http only to localhost where the deployment allows)' }),
  secret: z.string().optional().meta({ description: 'whsec_…; generated when absent' }),
  description: z.string().optional(),
});
const WEBHOOK_PROBLEMS = [...AUTH, 'invalid-stream-id'] as const;

export const GSD_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v1/projects/{project_id}/events',
    operationId: 'emitGsdEvents',
    tag: TAG,
    summary: 'Emit one colon event, or an array (all or nothing)',
    description:
      "Each event is stored as a Wire on `gsd:<project_id>` and gets the next event id (`++lastEventId`, gap-free). `agent`, when present, must be the token subject's id (`gsd-executor` ↔ `agent:gsd-executor`); an event without it is the subject's. `Idempotency-Key` makes a retry answer 200 instead of storing again.",
    access: 'bearer',
    scope: 'append',
    pathParams: projectParam,
    body: { schema: EventsBody, required: true },
    answers: {
      201: { description: 'Stored', schema: Accepted },
      200: { description: 'A retry of stored events (same Idempotency-Key)', schema: Accepted },
    },
    problems: [
      ...AUTH,
      ...BODY,
      'invalid-stream-id',
      'invalid-header',
      'invalid-body',
      'invalid-wire',
      'wire-id-conflict',
      'secret-in-payload',
      ...SIGNED,
      'rate-limited',
      'file-claimed',
      'file-not-held',
      'checkpoint-not-awaiting',
    ],
  },
  readScoped(TAG, {
    path: '/v1/projects/{project_id}/events',
    operationId: 'readGsdEvents',
    summary: 'The events.json view: filters, and a long poll (`wait`, `count`)',
    pathParams: projectParam,
    query: EventsQuery,
    answer: { description: "The seed's events.json shape", schema: EventsView },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query'],
  }),
  {
    method: 'get',
    path: '/v1/projects/{project_id}/events/ws',
    operationId: 'followGsdEvents',
    tag: TAG,
    summary: 'Follow the events view live over WebSocket',
    description:
      'Frames are `{"events":[…],"lastEventId":N}`: the first holds the matching events after `after`, each later one those appended since. `Authorization: Bearer` (browsers: none yet).',
    access: 'bearer',
    scope: 'read',
    pathParams: projectParam,
    query: FollowQuery,
    websocket: true,
    answers: {
      101: {
        description: 'Switching Protocols: the WebSocket is open (frames: GsdEventsFrame)',
        frames: {
          server: z.object({ events: z.array(Event), lastEventId: z.int().min(0) }),
          client: z.never(),
          names: ['GsdEventsFrame', 'GsdClientFrame'],
        },
      },
    },
    problems: [...AUTH, 'invalid-stream-id', 'invalid-query', 'invalid-header'],
  },
  readScoped(TAG, {
    path: '/v1/projects/{project_id}',
    operationId: 'getGsdProject',
    summary:
      'Dependencies per plan, claims, checkpoints, decisions, shared context, alerts, config',
    pathParams: projectParam,
    answer: { description: "The project's coordination state", schema: ProjectView },
    problems: [...AUTH, 'invalid-stream-id'],
  }),
  readScoped(TAG, {
    path: '/v1/projects/{project_id}/decisions',
    operationId: 'getGsdDecisions',
    summary: 'The decision log (decisions.json)',
    pathParams: projectParam,
    answer: { description: 'Every `decision:made`, oldest first', schema: Decisions },
    problems: [...AUTH, 'invalid-stream-id'],
  }),
  {
    method: 'put',
    path: '/v1/projects/{project_id}/config',
    operationId: 'putGsdConfig',
    tag: TAG,
    summary: "Set the project's `.planning/config.json` (event_handlers, retentionPolicy)",
    description:
      'Stored as a `config:updated` event holding the file verbatim; coordinator or admin identities only.',
    access: 'bearer',
    scope: 'append',
    pathParams: projectParam,
    body: { schema: z.looseObject({}), required: true },
    answers: { 200: { description: 'The configuration now in force', schema: ConfigAnswer } },
    problems: [...AUTH, ...BODY, 'invalid-stream-id', 'invalid-body', 'invalid-wire'],
  },

  {
    method: 'post',
    path: '/v1/projects/{project_id}/webhooks',
    operationId: 'registerGsdWebhook',
    tag: TAG,
    summary: 'Register the Standard Webhooks endpoint of a `custom:` handler',
    access: 'bearer',
    scope: 'append',
    pathParams: projectParam,
    body: { schema: EndpointBody, required: true },
    answers: {
      201: {
        description: 'Registered; the secret is shown once',
        schema: z.object({ endpoint: Endpoint, secret: z.string() }),
      },
    },
    problems: [...WEBHOOK_PROBLEMS, ...BODY, 'invalid-body'],
  },
  readScoped(TAG, {
    path: '/v1/projects/{project_id}/webhooks',
    operationId: 'listGsdWebhooks',
    summary: "The project's webhook endpoints (secrets never listed)",
    pathParams: projectParam,
    answer: {
      description: 'Endpoints, and the handlers sending to ids no endpoint has',
      schema: z.object({ endpoints: z.array(Endpoint), unrouted: z.array(Unrouted) }),
    },
    problems: [...WEBHOOK_PROBLEMS],
  }),
  readScoped(TAG, {
    path: '/v1/projects/{project_id}/webhooks/{endpoint_id}/deliveries',
    operationId: 'gsdWebhookDeliveries',
    summary: 'Delivery log of an endpoint: messages (pending, delivered, dead) and every attempt',
    pathParams: { ...projectParam, endpoint_id: EndpointId },
    query: DeliveriesQuery,
    answer: {
      description: 'Messages and attempts (status, latency, error)',
      schema: z.object({
        endpoint_id: z.string(),
        messages: z.array(z.looseObject({ id: z.string(), status: z.string() })),
        attempts: z.array(z.looseObject({})),
      }),
    },
    problems: [...WEBHOOK_PROBLEMS, 'invalid-query', 'not-found'],
  }),
  {
    method: 'post',
    path: '/v1/projects/{project_id}/webhooks/{endpoint_id}/rotate',
    operationId: 'rotateGsdWebhookSecret',
    tag: TAG,
    summary: 'A new secret; the old one keeps signing beside it for `grace_seconds`',
    access: 'bearer',
    scope: 'append',
    pathParams: { ...projectParam, endpoint_id: EndpointId },
    body: { schema: RotateBody, required: false },
    answers: {
      200: {
        description: 'The new secret',
        schema: z.object({ secret: z.string(), previous_expires_at: z.string() }),
      },
    },
    problems: [...WEBHOOK_PROBLEMS, ...BODY, 'invalid-body', 'not-found'],
  },
  {
    method: 'post',
    path: '/v1/projects/{project_id}/webhooks/{endpoint_id}/messages/{message_id}/replay',
    operationId: 'replayGsdWebhook',
    tag: TAG,
    summary: 'Deliver a message again (same webhook-id, a new series of attempts)',
    access: 'bearer',
    scope: 'append',
    pathParams: { ...projectParam, endpoint_id: z.string(), message_id: z.string() },
    answers: { 202: { description: 'Queued', schema: z.object({ replayed: z.string() }) } },
    problems: [...WEBHOOK_PROBLEMS, 'not-found', 'invalid-transition'],
  },
];
