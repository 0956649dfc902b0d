import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { call, connect, type Era, withMcp } from './helpers/mcp';
import {
  AGENT,
  DEFAULT_POLICY,
  envelope,
  eventually,
  openChannel,
  rt,
  spawnWorker,
  state,
} from './helpers/runtime';

/**
 * Runtime v1's channel and worker sides over MCP (`runtime_channel`,
 * `runtime_worker`), driven by the official SDK client: an agent opens a
 * channel, another is an interactive worker that hears a routed message and
 * completes; bad arguments are refused by name and store nothing.
 */

function refusedOn(r: Awaited<ReturnType<typeof call>>, argument: string, status?: number) {
  expect(r.isError, JSON.stringify(r.text)).toBe(true);
  expect(r.text.problem).toMatchObject({ argument, ...(status ? { status } : {}) });
}

describe.each<Era>(['session', 'sessionless'])('runtime tools, %s era', (era) => {
  it('a channel routes by its policy; an interactive worker hears a routed message, changes status and completes', async () => {
    const agent = await connect(era, { sub: AGENT, name: 'orchestrator' });
    const worker = await connect(era, { sub: AGENT, name: 'worker-proc' });
    try {
      const channel = uid('mcpch');
      const opened = await call(agent, 'runtime_channel', {
        action: 'open',
        channel_id: channel,
        policy: DEFAULT_POLICY,
        context_budget: 5000,
      });
      expect(opened.isError, JSON.stringify(opened.text)).toBeFalsy();
      const said = await call(agent, 'runtime_channel', {
        action: 'say',
        channel_id: channel,
        text: 'investigate the login errors',
      });
      expect(said.isError, JSON.stringify(said.text)).toBeFalsy();
      const decided = await call(agent, 'runtime_channel', {
        action: 'events',
        channel_id: channel,
      });
      const envelopes = (
        decided.structuredContent.events as { envelope: Record<string, unknown> }[]
      ).map((e) => e.envelope);
      expect(envelopes.at(-1)).toMatchObject({
        messageType: 'channel.route.decided',
        payload: { rule: 'research', action: 'spawn_branch' },
      });

      const w = uid('mcpw');
      const spawned = await call(worker, 'runtime_worker', {
        action: 'spawn',
        worker_id: w,
        channel_id: channel,
        goal: 'triage logins',
        toolset: ['logs'],
        mode: 'interactive',
      });
      expect(spawned.isError, JSON.stringify(spawned.text)).toBeFalsy();
      await call(worker, 'runtime_worker', { action: 'progress', worker_id: w, status: 'waiting' });
      await call(agent, 'runtime_channel', {
        action: 'say',
        channel_id: channel,
        text: 'eu-west first',
        to: w,
      });
      const heard = await call(worker, 'runtime_worker', { action: 'messages', worker_id: w });
      expect(heard.structuredContent.messages).toEqual([
        expect.objectContaining({ text: 'eu-west first', role: 'user' }),
      ]);
      const running = await call(worker, 'runtime_worker', { action: 'state', worker_id: w });
      expect(running.structuredContent).toMatchObject({ status: 'running', routedMessages: 1 });
      const done = await call(worker, 'runtime_worker', {
        action: 'complete',
        worker_id: w,
        summary: 'stale eu-west cache',
        tokens: { input: 900, output: 80 },
      });
      expect(done.isError, JSON.stringify(done.text)).toBeFalsy();
      await eventually(async () => {
        const s = (await state(channel)) as { workers: Record<string, { status: string }> };
        return s.workers[w]?.status === 'completed';
      });
      const bulletins = await call(agent, 'runtime_channel', { action: 'bulletins' });
      expect(Array.isArray(bulletins.structuredContent.bulletins)).toBe(true);
    } finally {
      await agent.close();
      await worker.close();
    }
  });

  it('refuses bad arguments by name, and nothing is stored', async () => {
    const c = await connect(era, { sub: AGENT, name: 'cursor' });
    try {
      const channel = uid('mcpbad');
      const w = uid('mcpw');
      const ch = { channel_id: channel };
      const cases: [string, Record<string, unknown>, string, number | undefined][] = [
        ['runtime_channel', { ...ch, action: 'open' }, 'policy', 422],
        [
          'runtime_channel',
          { ...ch, action: 'open', policy: { rules: [], default: { action: 'fly' } } },
          'policy',
          422,
        ],
        ['runtime_channel', { ...ch, action: 'state' }, 'channel_id', 404],
        ['runtime_channel', { ...ch, action: 'say' }, 'text', 422],
        ['runtime_worker', { ...ch, action: 'spawn', worker_id: w }, 'goal', 422],
        // The channel was never opened: the spawn's admission names it.
        [
          'runtime_worker',
          { ...ch, action: 'spawn', worker_id: w, goal: 'g', toolset: ['shell'] },
          'channel_id',
          404,
        ],
        [
          'runtime_worker',
          { action: 'progress', worker_id: w, status: 'running' },
          'worker_id',
          404,
        ],
        [
          'runtime_worker',
          { ...ch, action: 'spawn', worker_id: w, goal: 'x'.repeat(5000) },
          'goal',
          undefined,
        ],
      ];
      for (const [tool, args, argument, status] of cases)
        refusedOn(await call(c, tool, args), argument, status);
      // Nothing stored: no worker, no channel events.
      refusedOn(
        await call(c, 'runtime_worker', { action: 'state', worker_id: w }),
        'worker_id',
        404,
      );
      expect((await rt('GET', `/channels/${channel}/events`)).status).toBe(404);
    } finally {
      await c.close();
    }
  });
});

describe('runtime_worker messages', () => {
  it('pages routed messages by the last Wire read, so resuming loses none', async () => {
    const channelId = await openChannel({ rules: [], default: { action: 'respond' } });
    const { workerId } = await spawnWorker(channelId, { mode: 'interactive' });
    const sent = Array.from({ length: 110 }, (_, i) => `m${i}`);
    // Ten at a time: the order they reach the feed is not the point here.
    for (let i = 0; i < sent.length; i += 10) {
      const routed = await Promise.all(
        sent
          .slice(i, i + 10)
          .map((text) =>
            rt(
              'POST',
              `/channels/${channelId}/route/${workerId}`,
              envelope('channel.message.received', channelId, { text }),
            ),
          ),
      );
      expect(routed.map((r) => r.status)).toEqual(Array(routed.length).fill(201));
    }
    const pages = await withMcp('session', async (c) => {
      const seen: { texts: string[]; last_seq: number; more: boolean }[] = [];
      let after = 0;
      for (let more = true; more; ) {
        const r = await call(c, 'runtime_worker', {
          action: 'messages',
          worker_id: workerId,
          after_seq: after,
        });
        const page = r.structuredContent as {
          messages: { seq: number; text: string }[];
          last_seq: number;
          more: boolean;
        };
        seen.push({ texts: page.messages.map((m) => m.text), ...page });
        after = page.last_seq;
        more = page.more;
      }
      return seen;
    });
    // The worker's feed: worker.spawned, then the 110 routed messages (seq 2…111).
    expect(pages.map((p) => [p.texts.length, p.last_seq, p.more])).toEqual([
      [99, 100, true],
      [11, 111, false],
    ]);
    expect(pages.flatMap((p) => p.texts).sort()).toEqual([...sent].sort());
  }, 60_000);
});
