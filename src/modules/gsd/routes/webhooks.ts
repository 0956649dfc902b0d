import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  isCoordinator,
  parseQuery,
  problem,
  readJsonBody,
} from '../../../api/module-kit';
import { fail, isJsonObject } from '../../../protocol';
import { EndpointName } from '../payloads';
import { projectOf } from './project';

/**
 * `custom:<name>` handlers are Standard Webhooks endpoints registered on the
 * project's stream under `<name>` (the kernel's HTTP delivery, ARCHITECTURE.md
 * "Outbox": signed, retried, dead-lettered, logged, replayable, rotatable).
 */
export const webhooks = new Hono<AppEnv>();

function coordinatorOnly(c: Parameters<typeof problem>[0]) {
  const principal = c.get('principal');
  if (isCoordinator(principal)) return null;
  return problem(
    c,
    fail(
      'forbidden',
      `only coordinator or admin identities manage webhooks; "${principal.sub}" is neither`,
    ),
  );
}

webhooks.post('/projects/:project_id/webhooks', async (c) => {
  const project = projectOf(c, 'append');
  if (project instanceof Response) return project;
  const denied = coordinatorOnly(c);
  if (denied) return denied;
  const read = await readJsonBody(c, 16 * 1024);
  if (!read.ok) return problem(c, read);
  if (!isJsonObject(read.body))
    return problem(c, fail('invalid-body', 'the endpoint must be a JSON object'));
  // The id is the name a `custom:<name>` handler sends to: one no handler can
  // name (a generated `ep_…`, capitals) would be an endpoint nothing reaches.
  const id = EndpointName.safeParse(read.body.id);
  if (!id.success) {
    return problem(
      c,
      fail('invalid-body', `id: ${id.error.issues[0]?.message}`, {
        errors: [{ path: 'id', message: id.error.issues[0]?.message ?? 'invalid id' }],
      }),
    );
  }
  if (read.body.types !== undefined) {
    return problem(
      c,
      fail(
        'invalid-body',
        'types: a project endpoint gets what its custom: handler is mapped to (PUT …/config)',
      ),
    );
  }
  const created = await project.stub.registerWebhook(read.body);
  if (!created.ok) return problem(c, created);
  return c.json({ endpoint: created.endpoint, secret: created.secret }, 201);
});

webhooks.get('/projects/:project_id/webhooks', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const [endpoints, unrouted] = await Promise.all([
    project.stub.webhooks(),
    project.stub.webhookUnrouted(),
  ]);
  return c.json({ endpoints, unrouted });
});

/** `GET …/webhooks/{endpoint_id}/deliveries` */
export const DeliveriesQuery = {
  status: z
    .enum(['pending', 'delivered', 'dead'])
    .optional()
    .meta({ description: 'Only messages in this state' }),
};

webhooks.get('/projects/:project_id/webhooks/:endpoint_id/deliveries', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const parsed = parseQuery(c, DeliveriesQuery);
  if (!parsed.ok) return problem(c, parsed);
  const id = c.req.param('endpoint_id');
  const known = (await project.stub.webhooks()).some((e) => e.id === id);
  if (!known)
    return problem(
      c,
      fail('not-found', `no webhook endpoint "${id}" on project ${project.projectId}`),
    );
  const [attempts, messages] = await Promise.all([
    project.stub.webhookLog(id, 500),
    project.stub.webhookMessages(id, parsed.query.status, 500),
  ]);
  return Response.json({ endpoint_id: id, messages, attempts });
});

export const RotateBody = z.strictObject({
  grace_seconds: z
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
});

webhooks.post('/projects/:project_id/webhooks/:endpoint_id/rotate', async (c) => {
  const project = projectOf(c, 'append');
  if (project instanceof Response) return project;
  const denied = coordinatorOnly(c);
  if (denied) return denied;
  const raw =
    c.req.header('Content-Length') === '0'
      ? { ok: true as const, body: {} }
      : await readJsonBody(c, 1024);
  if (!raw.ok) return problem(c, raw);
  const body = RotateBody.safeParse(raw.body ?? {});
  if (!body.success) {
    const issue = body.error.issues[0];
    return problem(
      c,
      fail('invalid-body', `${issue?.path.join('.') || '(body)'}: ${issue?.message}`),
    );
  }
  const rotated = await project.stub.rotateWebhookSecret(
    c.req.param('endpoint_id'),
    body.data.grace_seconds,
  );
  if (!rotated.ok) return problem(c, rotated);
  return c.json({ secret: rotated.secret, previous_expires_at: rotated.previous_expires_at });
});

// Under its endpoint: a literal `messages` beside `:endpoint_id` would cost every
// request the faster router (ARCHITECTURE.md, "One parameter per position").
webhooks.post(
  '/projects/:project_id/webhooks/:endpoint_id/messages/:message_id/replay',
  async (c) => {
    const project = projectOf(c, 'append');
    if (project instanceof Response) return project;
    const denied = coordinatorOnly(c);
    if (denied) return denied;
    const replayed = await project.stub.replayWebhook(
      c.req.param('endpoint_id'),
      c.req.param('message_id'),
    );
    if (!replayed.ok) return problem(c, replayed);
    return c.json({ replayed: c.req.param('message_id') }, 202);
  },
);
