import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import {
  envelope,
  events,
  eventually,
  type Json,
  openChannel,
  rt,
  say,
  state,
} from './helpers/runtime';

describe('Runtime v1 channels', () => {
  it('records the message and the route decision naming the rule, in one stretch', async () => {
    const channelId = await openChannel();
    const posted = await say(channelId, 'Please research caching strategies');
    expect(posted.status).toBe(201);
    const evs = await events(channelId);
    const types = evs.map((e) => e.messageType);
    expect(types).toEqual(['channel.opened', 'channel.message.received', 'channel.route.decided']);
    const decided = evs[2] as { payload: Record<string, unknown>; branchId: string };
    expect(decided.payload.rule).toBe('research');
    expect(decided.payload.action).toBe('spawn_branch');
    expect(decided.branchId).toBe(decided.payload.branchId);
  });

  it('decides deterministically: rules in order, metadata matches, else the default', async () => {
    const channelId = await openChannel();
    await say(channelId, 'build the thing');
    await say(channelId, 'hello', {}, { metadata: { priority: 'high' } });
    await say(channelId, 'hello');
    await say(channelId, 'build and research', {}, {});
    const decisions = (await events(channelId))
      .filter((e) => e.messageType === 'channel.route.decided')
      .map((e) => [
        (e.payload as Record<string, string>).rule,
        (e.payload as Record<string, string>).action,
      ]);
    expect(decisions).toEqual([
      ['build', 'spawn_worker'],
      ['urgent', 'respond'],
      ['default', 'respond'],
      ['research', 'spawn_branch'],
    ]);
    const s = await state(channelId);
    expect(s.messages).toBe(4);
    expect(s.lastDecision).toMatchObject({ rule: 'research' });
  });

  it('reads an event back as it was sent, unknown members included', async () => {
    const channelId = await openChannel();
    const sent = envelope(
      'channel.message.received',
      channelId,
      { text: 'hi', futureField: { nested: [1, 2] } },
      { taskId: 'T-9', extensions: { 'x-ui': { color: 'blue' } }, somethingNew: 'kept' },
    );
    expect((await rt('POST', `/channels/${channelId}/messages`, sent)).status).toBe(201);
    const back = (await events(channelId)).find((e) => e.messageId === sent.messageId);
    expect(back).toEqual(sent);
    // The same envelope again is a replay; the same id with other content a conflict.
    const again = await rt('POST', `/channels/${channelId}/messages`, sent);
    expect(again.status).toBe(200);
    const changed = await rt('POST', `/channels/${channelId}/messages`, {
      ...sent,
      payload: { text: 'other' },
    });
    expect(changed.status).toBe(409);
  });

  it('refuses bad input precisely and stores nothing', async () => {
    const channelId = await openChannel();
    const cases: [string, unknown, number, string][] = [
      ['/channels', envelope('channel.opened', 'x', { contextBudget: 5 }), 422, 'payload.policy'],
      [
        '/channels',
        envelope('channel.opened', 'bad id!', {
          policy: { default: { action: 'respond' } },
          contextBudget: 5,
        }),
        422,
        'channelId',
      ],
      [
        '/channels',
        envelope('channel.opened', 'x1', {
          policy: { rules: [], default: { action: 'fly' } },
          contextBudget: 5,
        }),
        422,
        'payload.policy.default.action',
      ],
      [
        `/channels/${channelId}/messages`,
        envelope('channel.message.received', channelId, {}),
        422,
        'payload.text',
      ],
      [
        `/channels/${channelId}/messages`,
        envelope('worker.progress', channelId, { status: 'running' }),
        422,
        'messageType',
      ],
      [
        `/channels/${channelId}/messages`,
        envelope('channel.message.received', 'other', { text: 'x' }),
        422,
        'channelId',
      ],
      [
        `/channels/${channelId}/messages`,
        { ...envelope('channel.message.received', channelId, { text: 'x' }), ts: 'yesterday' },
        422,
        'ts',
      ],
      [`/channels/${channelId}/messages`, '{"not json', 400, ''],
      [
        `/channels/${channelId}/summaries`,
        envelope('compactor.summary.applied', channelId, { fromSeq: 5, toSeq: 2, summary: 's' }),
        422,
        'payload.toSeq',
      ],
    ];
    for (const [path, body, status, field] of cases) {
      const res = await rt('POST', path, body);
      expect([path, res.status]).toEqual([path, status]);
      expect(res.res.headers.get('Content-Type')).toContain('application/problem+json');
      if (field) expect(JSON.stringify(res.body)).toContain(field);
    }
    const noChannel = await say('never-opened', 'hello');
    expect(noChannel.status).toBe(404);
    expect((await events(channelId)).map((e) => e.messageType)).toEqual(['channel.opened']);
    expect((await rt('GET', '/channels/never-opened/state')).status).toBe(404);
    expect((await rt('GET', '/channels/bad%20id/state')).status).toBe(400);
  });

  it('refuses a channel id longer than 72 characters (422 naming channelId and the limit)', async () => {
    const channelId = uid('ch').padEnd(73, 'x');
    const res = await rt(
      'POST',
      '/channels',
      envelope('channel.opened', channelId, {
        policy: { rules: [], default: { action: 'respond' } },
        contextBudget: 100,
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/invalid-wire');
    expect(res.body.errors).toEqual([
      { path: 'channelId', message: expect.stringContaining('at most 72') },
    ]);
    expect((await rt('GET', `/channels/${channelId}/state`)).status).toBe(404);
  });

  it('gives a channel with a 72-character id the branches, workers and summarizers its decisions name', async () => {
    const channelId = uid('ch').padEnd(72, 'x');
    const opened = await rt(
      'POST',
      '/channels',
      envelope('channel.opened', channelId, {
        policy: {
          rules: [
            {
              id: 'build',
              when: { textStartsWith: 'build' },
              route: { action: 'spawn_worker', toolset: ['shell'], mode: 'fire_and_forget' },
            },
          ],
          default: { action: 'spawn_branch' },
        },
        contextBudget: 100,
      }),
    );
    expect(opened.status).toBe(201);
    expect((await say(channelId, 'build it', {}, { tokens: 99 })).status).toBe(201);
    expect((await say(channelId, 'look into it', {}, { tokens: 1 })).status).toBe(201);
    const evs = await events(channelId);
    const named = [
      ...evs
        .filter((e) => e.messageType === 'channel.route.decided')
        .map((e) => e.payload as Json)
        .map((p) => (p.branchId ? `branches/${p.branchId}` : `workers/${p.workerId}`)),
      ...evs
        .filter((e) => e.messageType === 'compactor.threshold.hit')
        .map((e) => `workers/${(e.payload as Json).jobWorkerId}`),
    ];
    expect(named).toHaveLength(5);
    for (const path of named)
      await eventually(async () => (await rt('GET', `/${path}/state`)).status === 200);
  });
});
