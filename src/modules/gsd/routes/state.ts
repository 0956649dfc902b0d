import { Hono } from 'hono';
import { type AppEnv, problem, readJsonBody, tokenGuards } from '../../../api/module-kit';
import { draftOf } from '../../../kernel/append';
import { hasOwnKey } from '../../../kernel/records';
import { fail, isJsonObject } from '../../../protocol';
import { type StreamApi, wiresAt } from '../../../stream/stub';
import { REGISTRY } from '../../index';
import { eventOf, gsdDialect } from '../event';
import { handlersFor } from '../handlers';
import { projectOf, stateOf } from './project';

/**
 * A project's coordination state, as its decider keeps it: dependencies per
 * plan, file claims, checkpoints, the decision log, shared context, alerts
 * and the handler configuration (`PUT …/config`, the seed's
 * `.planning/config.json` verbatim).
 */
export const projectState = new Hono<AppEnv>();

/**
 * A log the state keeps as `{[by], eventId}` entries, served as the seed's
 * `{...event, [by], eventId}`: each event read back from its Wire.
 */
async function logged(
  stub: StreamApi,
  entries: readonly Record<string, unknown>[],
  by: 'madeBy' | 'agent',
): Promise<Record<string, unknown>[]> {
  const wires = await wiresAt(
    stub,
    entries.map((e) => Number(e.eventId)),
  );
  return entries.map((e) => {
    const wire = wires.get(Number(e.eventId));
    return { ...(wire ? eventOf(wire) : {}), [by]: e[by], eventId: e.eventId };
  });
}

projectState.get('/projects/:project_id', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const s = await stateOf(project.stub);
  const plans = Object.fromEntries(
    Object.entries(s.plans).map(([plan, deps]) => {
      const open = deps.waitsOn.filter((req) => !hasOwnKey(deps.satisfied, req));
      return [plan, { ...deps, waitingOn: open, status: open.length === 0 ? 'ready' : 'waiting' }];
    }),
  );
  const types = new Set([...Object.keys(s.handlers ?? {}), 'task:completed', 'task:failed']);
  return Response.json(
    {
      project_id: project.projectId,
      stream_id: project.streamId,
      lastEventId: s.lastEventId,
      plans,
      claims: Object.values(s.claims),
      checkpoints: Object.values(s.checkpoints),
      decisions: await logged(project.stub, s.decisions, 'madeBy'),
      sharedContext: s.sharedContext,
      alerts: await logged(project.stub, s.alerts, 'agent'),
      config: {
        event_handlers: s.handlers,
        retentionPolicy: s.retentionPolicy,
        effective: Object.fromEntries(
          [
            ...types,
            'artifact:created',
            'artifact:modified',
            'plan:waiting',
            'decision:made',
            'checkpoint:reached',
          ].map((t) => [t, handlersFor(s.handlers, t)]),
        ),
      },
    },
    { headers: { 'Cache-Control': 'no-store' } },
  );
});

/** The decision log (the seed's decisions.json, kept by `builtin:decision-tracker`). */
projectState.get('/projects/:project_id/decisions', async (c) => {
  const project = projectOf(c, 'read');
  if (project instanceof Response) return project;
  const s = await stateOf(project.stub);
  return Response.json(
    { decisions: await logged(project.stub, s.decisions, 'madeBy'), lastEventId: s.lastEventId },
    { headers: { 'Cache-Control': 'no-store' } },
  );
});

/**
 * `PUT …/config`: the project's `.planning/config.json`, as is. It becomes a
 * `config:updated` event (the whole file, so nothing in it is lost); its
 * `event_handlers` and `retentionPolicy` take effect from the next event.
 */
projectState.put('/projects/:project_id/config', async (c) => {
  const project = projectOf(c, 'append');
  if (project instanceof Response) return project;
  const read = await readJsonBody(c, 64 * 1024);
  if (!read.ok) return problem(c, read);
  if (!isJsonObject(read.body)) {
    return problem(
      c,
      fail('invalid-body', 'the config must be a JSON object (.planning/config.json)'),
    );
  }
  for (const reserved of ['type', 'timestamp', 'agent', 'id']) {
    if (reserved in read.body) {
      return problem(
        c,
        fail(
          'invalid-body',
          `${reserved}: a config may not carry "${reserved}" (it names the event)`,
        ),
      );
    }
  }
  const event = { type: 'config:updated', ...read.body, timestamp: new Date().toISOString() };
  const sender = c.get('principal').sub;
  const drafted = draftOf(event, project.streamId, REGISTRY, { dialect: gsdDialect, sender });
  if (!drafted.ok) return problem(c, drafted);
  const guards = tokenGuards(c);
  const denied = guards.rights(drafted.draft);
  if (denied) return problem(c, denied);
  const signed = await guards.signature(drafted.draft);
  if (!signed.ok) return problem(c, signed);
  const result = await project.stub.append(signed.draft);
  if (!result.ok) return problem(c, result);
  const s = await stateOf(project.stub);
  return c.json(
    {
      event_handlers: s.handlers,
      retentionPolicy: s.retentionPolicy,
      id: result.receipt.stream_seq,
    },
    200,
  );
});
