import { describe, expect, it } from 'vitest';
import type { Effect } from '../../src/kernel/kind';
import { systemDraft } from '../../src/modules/runtime/envelope';
import { channelKind } from '../../src/modules/runtime/kinds/channel';
import type { Draft, Wire } from '../../src/protocol';
import { uid } from './helpers/coordination';
import {
  AGENT,
  envelope,
  events,
  eventually,
  type Json,
  openChannel,
  report,
  rt,
  say,
  spawnWorker,
  state,
} from './helpers/runtime';

/**
 * A channel's policy (FR-3): rule ids name one rule each, a decision is
 * carried out as it was taken, and a rule's route to a worker is held to
 * the checks of a client's explicit route.
 */

const buildRule = {
  id: 'build',
  when: { textStartsWith: 'build' },
  route: { action: 'spawn_worker', toolset: ['shell'], mode: 'fire_and_forget' },
};

/** Waits until the channel has heard of `workerId` (its worker.spawned copy). */
async function known(channelId: string, workerId: string): Promise<void> {
  await eventually(async () => {
    const workers = (await state(channelId)).workers as Record<string, unknown> | undefined;
    return workers ? Object.hasOwn(workers, workerId) : false;
  });
}

describe('Runtime v1 policy rule ids', () => {
  it('refuses at open a policy whose rule ids repeat or are reserved (422 naming the rule), and opens nothing', async () => {
    const cases: [Json[], string][] = [
      [[{ ...buildRule, id: 'default' }], 'payload.policy.rules.0.id'],
      [[{ ...buildRule, id: 'explicit-route' }], 'payload.policy.rules.0.id'],
      [
        [
          { id: 'r', when: { textIncludes: ['zzz'] }, route: { action: 'respond' } },
          { ...buildRule, id: 'r' },
        ],
        'payload.policy.rules.1.id',
      ],
    ];
    for (const [rules, path] of cases) {
      const channelId = uid('ch');
      const res = await rt(
        'POST',
        '/channels',
        envelope('channel.opened', channelId, {
          policy: { rules, default: { action: 'respond' } },
          contextBudget: 1000,
        }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.type).toBe('/problems/invalid-wire');
      expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
      expect((await rt('GET', `/channels/${channelId}/state`)).status).toBe(404);
    }
  });

  it('names the fired rule by position in the decision, and spawns the worker it decided', async () => {
    const channelId = await openChannel({
      rules: [{ id: 'hello', when: { textIncludes: ['hello'] }, route: { action: 'respond' } }],
      default: { action: 'spawn_worker', toolset: ['shell'], mode: 'fire_and_forget' },
    });
    await say(channelId, 'hello there');
    await say(channelId, 'build the docs');
    const decided = (await events(channelId))
      .filter((e) => e.messageType === 'channel.route.decided')
      .map((e) => e.payload as Json);
    expect(decided[0]).toMatchObject({ rule: 'hello', ruleIndex: 0, action: 'respond' });
    expect(decided[1]).toMatchObject({ rule: 'default', action: 'spawn_worker' });
    expect(decided[1]).not.toHaveProperty('ruleIndex');
    const worker = await eventually(async () => {
      const w = await rt('GET', `/workers/${String(decided[1]?.workerId)}/state`);
      return w.status === 200 ? w.body : null;
    });
    expect(worker).toMatchObject({ status: 'spawned', mode: 'fire_and_forget', channelId });
  });

  it('carries out the rule a decision fired even when a policy stored before ids were checked repeats its id', () => {
    const streamId = 'channel:legacy';
    const ts = new Date(0).toISOString();
    const wire = (seq: number, messageType: string, payload: Json, sender = 'system'): Wire => ({
      ...systemDraft({
        streamId,
        messageType,
        wireId: `w${seq}`,
        ts,
        traceId: null,
        channelId: 'legacy',
        payload: payload as Draft['payload'],
      }),
      sender,
      stream_seq: seq,
    });
    const { decider } = channelKind;
    // Such a channel is refused at open now; its stored opening still replays.
    const opened = wire(1, 'channel.opened', {
      policy: {
        rules: [
          { id: 'r', when: { textIncludes: ['zzz'] }, route: { action: 'respond' } },
          { ...buildRule, id: 'r' },
        ],
        default: { action: 'respond' },
      },
      contextBudget: 1000,
    });
    let s = decider.evolve(decider.initialState(), opened, null);
    const message = wire(2, 'channel.message.received', { text: 'build the docs' }, AGENT);
    const drafts = decider.decide(message, s, { now: 0, cfg: null, hold: null });
    expect(Array.isArray(drafts)).toBe(true);
    const effects: Effect[] = [];
    for (const [i, draft] of (drafts as Draft[]).entries()) {
      const stored = { ...draft, stream_seq: 2 + i };
      const before = s;
      s = decider.evolve(s, stored, null);
      effects.push(...((decider.react?.(before, s, stored) ?? []) as Effect[]));
    }
    expect(effects.map((e) => [e.target, e.draft.type])).toEqual([
      ['worker:legacy-w2', 'runtime.worker.spawned'],
    ]);
    expect(effects[0]?.draft.payload).toMatchObject({
      toolset: ['shell'],
      mode: 'fire_and_forget',
    });
  });
});

describe('Runtime v1 policy routes to a worker', () => {
  it('routes a message by the policy to an interactive worker of the channel', async () => {
    const workerId = uid('wk');
    const channelId = await openChannel({
      rules: [],
      default: { action: 'route_worker', workerId },
    });
    await spawnWorker(channelId, { mode: 'interactive' }, { workerId });
    await known(channelId, workerId);
    expect((await say(channelId, 'look at eu-west')).status).toBe(201);
    const w = await eventually(async () => {
      const r = await rt('GET', `/workers/${workerId}/state`);
      return r.body.routedMessages === 1 ? r.body : null;
    });
    expect(w.status).toBe('running');
  });

  it('refuses a policy route to a fire_and_forget worker (409 worker-not-interactive), storing nothing', async () => {
    const workerId = uid('wk');
    const channelId = await openChannel({
      rules: [],
      default: { action: 'route_worker', workerId },
    });
    await spawnWorker(channelId, { mode: 'fire_and_forget' }, { workerId });
    await known(channelId, workerId);
    const res = await say(channelId, 'look at eu-west');
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/worker-not-interactive');
    expect(String(res.body.detail)).toContain('policy rule "default"');
    const types = (await events(channelId)).map((e) => e.messageType);
    expect(types).not.toContain('channel.message.received');
    expect((await rt('GET', `/workers/${workerId}/state`)).body.routedMessages).toBe(0);
  });

  it('refuses a policy route to a worker spawned in another channel (404), as the explicit route does', async () => {
    const other = await openChannel({ rules: [], default: { action: 'respond' } });
    const { workerId } = await spawnWorker(other, { mode: 'interactive' });
    await known(other, workerId);
    const channelId = await openChannel({
      rules: [
        {
          id: 'to-worker',
          when: { textIncludes: ['hello'] },
          route: { action: 'route_worker', workerId },
        },
      ],
      default: { action: 'respond' },
    });
    const explicit = await rt(
      'POST',
      `/channels/${channelId}/route/${workerId}`,
      envelope('channel.message.received', channelId, { text: 'x' }),
    );
    const res = await say(channelId, 'hello there');
    expect([explicit.status, res.status]).toEqual([404, 404]);
    expect(res.body.type).toBe(explicit.body.type);
    expect(String(res.body.detail)).toContain('policy rule "to-worker"');
    expect((await rt('GET', `/workers/${workerId}/state`)).body.routedMessages).toBe(0);
  });

  it('refuses a policy route to a worker that has completed (409 invalid-transition)', async () => {
    const workerId = uid('wk');
    const channelId = await openChannel({
      rules: [],
      default: { action: 'route_worker', workerId },
    });
    await spawnWorker(channelId, { mode: 'interactive' }, { workerId });
    await report(workerId, channelId, 'worker.completed', { report: { summary: 'done' } });
    await eventually(async () => {
      const workers = (await state(channelId)).workers as Record<string, { status: string }>;
      return workers[workerId]?.status === 'completed';
    });
    const res = await say(channelId, 'one more thing');
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/invalid-transition');
  });
});
