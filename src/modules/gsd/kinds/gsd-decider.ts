import { derivedWireId } from '../../../kernel/derived-id';
import { accept, type Decider, type WebhookEffect } from '../../../kernel/kind';
import { hasOwnKey, ownValue, setOwn } from '../../../kernel/records';
import { type Draft, type Failure, fail, type Wire } from '../../../protocol';
import { DEPENDENCY_ID, GSD_PREFIX, wireType } from '../catalogue';
import { eventOf, type GsdEvent, str, strings, taskOf } from '../event';
import { BUILTINS, type EventHandlers, handlersFor, runs } from '../handlers';
import { decisionLogEffects } from './decision-log';
import { gateClaimId, releaseEffects } from './file-claims';
import {
  type Checkpoint,
  type Claim,
  checkpointKey,
  type GsdState,
  initialState,
  type PlanDeps,
} from './state';

/**
 * The decider of a GSD project's event log. It accepts every colon event
 * (the catalogue has checked the known ones' fields), refuses what the
 * project's state forbids — a file claimed by another agent, an answer to a
 * checkpoint nobody awaits or by someone who is not a person — and appends,
 * in the same synchronous stretch as an event that satisfies waiting plans,
 * the coordinator's `dependency:satisfied` (so it exists once, whatever the
 * retries and however many emitters race). Pure: time comes in as `ctx.now`.
 */
export const gsdDecider: Decider<GsdState, null> = {
  initialState,
  decide(command, state, ctx) {
    if (!command.type.startsWith(`${GSD_PREFIX}.`)) {
      return fail(
        'not-a-gsd-event',
        `type "${command.type}": a gsd: stream holds GSD events only (post them to /v1/projects/{project_id}/events)`,
      );
    }
    const event = eventOf(command);
    // A claim the gate granted (ctx.hold) is the authority on who holds the path.
    const refused = ctx.hold ? null : refusal(event, command.sender, state);
    if (refused) return refused;
    const releases = releasesOf(event, state);
    return [
      ...accept(command),
      ...releases.map((r, i) => satisfied(command, r.artifact, r.plans, i, ctx.now)),
    ];
  },
  evolve(state, wire) {
    return evolveEvent(structuredClone(state), eventOf(wire), wire);
  },
  react: (before, after, wire) => [
    ...releaseEffects(before, after, wire),
    ...decisionLogEffects(after, wire),
    ...customHandlers(after, wire),
  ],
};

function refusal(event: GsdEvent, sender: string, state: GsdState): Failure | null {
  switch (event.type) {
    case 'file:claimed': {
      const path = str(event, 'path') ?? '';
      const held = ownValue(state.claims, path);
      if (held && held.holder !== sender) {
        return fail(
          'file-claimed',
          `path "${path}" is claimed by ${held.holder}${held.plan ? ` (plan ${held.plan})` : ''} since event ${held.eventId}`,
          { extra: { holder: held.holder, path, claimed_at_event: held.eventId } },
        );
      }
      return null;
    }
    case 'file:released': {
      const path = str(event, 'path') ?? '';
      const held = ownValue(state.claims, path);
      if (!held) return fail('file-not-held', `path "${path}" is not claimed`, { extra: { path } });
      if (held.holder !== sender) {
        return fail(
          'file-not-held',
          `path "${path}" is claimed by ${held.holder}, not by ${sender}`,
          { extra: { holder: held.holder, path } },
        );
      }
      return null;
    }
    case 'checkpoint:approved':
    case 'checkpoint:rejected': {
      if (!sender.startsWith('human:')) {
        return fail(
          'forbidden',
          `${event.type} is a person's answer: the sender must be a human: identity, not "${sender}"`,
        );
      }
      const key = checkpointKey(str(event, 'plan') ?? '', taskOf(event));
      if (ownValue(state.checkpoints, key)?.status !== 'awaiting') {
        return fail(
          'checkpoint-not-awaiting',
          `no checkpoint of plan "${str(event, 'plan')}" task ${JSON.stringify(taskOf(event))} awaits an answer`,
        );
      }
      return null;
    }
    default:
      return null;
  }
}

/** What the dependency resolver releases with this event: per artifact path, the plans. */
function releasesOf(event: GsdEvent, state: GsdState): { artifact: string; plans: string[] }[] {
  if (!runs(state.handlers, event.type, BUILTINS.dependencyResolver)) return [];
  if (event.type === 'artifact:created' || event.type === 'artifact:modified') {
    const path = str(event, 'path');
    if (path === null) return [];
    const keys = new Set([path, ...strings(event, 'provides')]);
    const plans = Object.entries(state.plans)
      .filter(([, deps]) =>
        deps.waitsOn.some((req) => keys.has(req) && !hasOwnKey(deps.satisfied, req)),
      )
      .map(([plan]) => plan);
    return plans.length > 0 ? [{ artifact: path, plans }] : [];
  }
  if (event.type === 'plan:waiting') {
    const plan = str(event, 'plan') ?? '';
    const deps = ownValue(state.plans, plan);
    const artifacts = new Set<string>();
    for (const req of strings(event, 'waitsOn')) {
      const by = ownValue(state.provided, req);
      if (by !== undefined && !(deps && hasOwnKey(deps.satisfied, req))) artifacts.add(by);
    }
    return [...artifacts].map((artifact) => ({ artifact, plans: [plan] }));
  }
  return [];
}

function satisfied(cause: Wire, artifact: string, plans: string[], i: number, now: number): Draft {
  return {
    wire: '1.1',
    wire_id: derivedWireId(DEPENDENCY_ID, cause.wire_id, i),
    stream_id: cause.stream_id,
    correlation_id: cause.correlation_id,
    causation_id: cause.wire_id,
    type: wireType('dependency:satisfied'),
    sender: 'system',
    ts: new Date(now).toISOString(),
    payload: { artifact, requiredBy: plans },
  };
}

function satisfy(state: GsdState, keys: Set<string>, artifact: string, eventId: number): void {
  for (const deps of Object.values(state.plans)) {
    for (const req of deps.waitsOn) {
      if (keys.has(req) && !hasOwnKey(deps.satisfied, req))
        setOwn(deps.satisfied, req, { artifact, eventId });
    }
  }
}

/**
 * `custom:<name>` handlers of the event's type: a webhook to the project's
 * endpoint `<name>`, recorded with the event (durable, once per event) and
 * delivered after the reply, so a slow receiver never slows intake.
 */
function customHandlers(state: GsdState, wire: Wire): WebhookEffect[] {
  const event = eventOf(wire);
  return handlersFor(state.handlers, event.type)
    .filter((h) => h.startsWith('custom:'))
    .map((h) => ({
      via: 'http',
      endpoint_id: h.slice('custom:'.length),
      event_type: event.type,
      body: event,
    }));
}

function planOf(s: GsdState, plan: string): PlanDeps {
  const known = ownValue(s.plans, plan);
  if (known) return known;
  const deps: PlanDeps = { waitsOn: [], satisfied: {} };
  setOwn(s.plans, plan, deps);
  return deps;
}

function on(handlers: EventHandlers | null, type: string, builtin: string): boolean {
  return runs(handlers, type, builtin);
}

function evolveEvent(s: GsdState, event: GsdEvent, wire: Wire): GsdState {
  const eventId = wire.stream_seq;
  s.lastEventId = eventId;
  const plan = str(event, 'plan');
  switch (event.type) {
    case 'task:completed': {
      if (!plan || !on(s.handlers, event.type, BUILTINS.blackboardSync)) break;
      const { type: _t, ...fields } = event;
      const tasks = { ...ownValue(s.sharedContext, plan) };
      setOwn(tasks, String(taskOf(event)), { ...fields, agent: wire.sender, eventId });
      setOwn(s.sharedContext, plan, tasks);
      break;
    }
    case 'task:failed':
      if (on(s.handlers, event.type, BUILTINS.errorHandler))
        s.alerts.push({ agent: wire.sender, eventId });
      break;
    case 'artifact:created':
    case 'artifact:modified': {
      const path = str(event, 'path');
      if (path === null) break;
      const keys = new Set([path, ...strings(event, 'provides')]);
      for (const key of keys) if (!hasOwnKey(s.provided, key)) setOwn(s.provided, key, path);
      if (on(s.handlers, event.type, BUILTINS.dependencyResolver)) satisfy(s, keys, path, eventId);
      break;
    }
    case 'plan:waiting': {
      if (!plan) break;
      const deps = planOf(s, plan);
      for (const req of strings(event, 'waitsOn'))
        if (!deps.waitsOn.includes(req)) deps.waitsOn.push(req);
      if (on(s.handlers, event.type, BUILTINS.dependencyResolver)) {
        for (const req of deps.waitsOn) {
          const by = ownValue(s.provided, req);
          if (by !== undefined && !hasOwnKey(deps.satisfied, req))
            setOwn(deps.satisfied, req, { artifact: by, eventId });
        }
      }
      break;
    }
    case 'dependency:satisfied': {
      // The coordinator's own are already folded in by their cause; one posted by hand says so.
      const artifact = str(event, 'artifact');
      if (artifact === null || wire.sender === 'system') break;
      for (const p of strings(event, 'requiredBy')) {
        const deps = planOf(s, p);
        if (!deps.waitsOn.includes(artifact)) deps.waitsOn.push(artifact);
        if (!hasOwnKey(deps.satisfied, artifact))
          setOwn(deps.satisfied, artifact, { artifact, eventId });
      }
      break;
    }
    case 'decision:made':
      if (on(s.handlers, event.type, BUILTINS.decisionTracker))
        s.decisions.push({ madeBy: event.madeBy ?? wire.sender, eventId });
      break;
    case 'checkpoint:reached': {
      if (!plan) break;
      setOwn<Checkpoint>(s.checkpoints, checkpointKey(plan, taskOf(event)), {
        plan,
        task: taskOf(event),
        checkpointType: str(event, 'checkpointType'),
        awaiting: str(event, 'awaiting'),
        status: 'awaiting',
        eventId,
        answeredBy: null,
        answerEventId: null,
        comment: null,
      });
      break;
    }
    case 'checkpoint:approved':
    case 'checkpoint:rejected': {
      const checkpoint = ownValue(s.checkpoints, checkpointKey(plan ?? '', taskOf(event)));
      if (!checkpoint) break;
      checkpoint.status = event.type === 'checkpoint:approved' ? 'approved' : 'rejected';
      checkpoint.answeredBy = wire.sender;
      checkpoint.answerEventId = eventId;
      checkpoint.comment = str(event, 'comment');
      break;
    }
    case 'file:claimed': {
      const path = str(event, 'path');
      if (path === null) break;
      // Each claim event has its own gate claim; a re-claim's replaces the
      // holder's earlier one, which `releaseEffects` gives back.
      setOwn<Claim>(s.claims, path, {
        path,
        holder: wire.sender,
        plan,
        eventId,
        claimId: gateClaimId(wire),
      });
      break;
    }
    case 'file:released': {
      const path = str(event, 'path');
      if (path !== null) delete s.claims[path];
      break;
    }
    case 'config:updated': {
      const handlers = event.event_handlers;
      if (handlers && typeof handlers === 'object' && !Array.isArray(handlers))
        s.handlers = handlers as EventHandlers;
      const retention = str(event, 'retentionPolicy');
      if (retention !== null) s.retentionPolicy = retention;
      break;
    }
    default:
      break;
  }
  return s;
}
