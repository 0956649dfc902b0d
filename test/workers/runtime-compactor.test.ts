import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { cron, envelope, events, eventually, openChannel, rt, say, state } from './helpers/runtime';

type Json = Record<string, unknown>;

const respondOnly = { rules: [], default: { action: 'respond' } };

describe('Runtime v1 compactor', () => {
  it('acceptance 3: schedules soft, aggressive and emergency summarize jobs at 80/85/95 % without failing the channel', async () => {
    const channelId = await openChannel(respondOnly, 1000);
    // Token counts reported by the sender: 790 → 79 %, then 81 %, 86 %, 96 %, 130 %.
    const steps = [790, 20, 50, 100, 340];
    for (const tokens of steps) {
      expect((await say(channelId, 'context', {}, { tokens })).status).toBe(201);
    }
    const hits = (await events(channelId)).filter(
      (e) => e.messageType === 'compactor.threshold.hit',
    );
    expect(hits.map((h) => (h.payload as Json).level)).toEqual(['soft', 'aggressive', 'emergency']);
    expect(hits.map((h) => (h.payload as Json).utilization)).toEqual([0.81, 0.86, 0.96]);
    // Each hit scheduled a summarize job for a background worker at its level.
    for (const hit of hits) {
      const p = hit.payload as Json;
      const job = await eventually(async () => {
        const w = await rt('GET', `/workers/${p.jobWorkerId}/state`);
        return w.status === 200 ? w.body : null;
      });
      expect(job).toMatchObject({
        status: 'spawned',
        toolset: ['summarize'],
        mode: 'fire_and_forget',
      });
    }
    // Past 100 %: the channel still takes messages and still routes them.
    const s = await state(channelId);
    expect(s.utilization).toBe(1.3);
    expect(s.level).toBe(3);
    expect((await say(channelId, 'still here', {}, { tokens: 10 })).status).toBe(201);
    expect((await state(channelId)).messages).toBe(6);

    // A summary of seq 2..12 replaces that range: utilization drops, levels re-arm.
    const evs = await events(channelId);
    const lastMessageSeq = (await rt('GET', `/channels/${channelId}/events`)).body
      .last_seq as number;
    expect(evs.length).toBeGreaterThan(0);
    const summary = await rt(
      'POST',
      `/channels/${channelId}/summaries`,
      envelope('compactor.summary.applied', channelId, {
        fromSeq: 2,
        toSeq: lastMessageSeq,
        summary: 'The user set up context; nothing decided yet.',
        summaryTokens: 100,
      }),
    );
    expect(summary.status).toBe(201);
    const after = await state(channelId);
    expect(after.liveTokens).toBe(100);
    expect(after.utilization).toBe(0.1);
    expect(after.level).toBe(0);
    // Crossing 80 % again fires soft again (once per crossing).
    await say(channelId, 'more', {}, { tokens: 750 });
    const again = (await events(channelId)).filter(
      (e) => e.messageType === 'compactor.threshold.hit',
    );
    expect(again.map((h) => (h.payload as Json).level)).toEqual([
      'soft',
      'aggressive',
      'emergency',
      'soft',
    ]);
  });

  it('estimates tokens from the text when none are reported, and refuses a summary of a range not in the channel', async () => {
    const channelId = await openChannel(respondOnly, 100);
    await say(channelId, 'x'.repeat(340)); // ⌈340 / 4⌉ = 85 tokens: 85 % is soft (> 80), not aggressive (> 85)
    const hits = (await events(channelId)).filter(
      (e) => e.messageType === 'compactor.threshold.hit',
    );
    expect(hits.map((h) => (h.payload as Json).level)).toEqual(['soft']);
    const bad = await rt(
      'POST',
      `/channels/${channelId}/summaries`,
      envelope('compactor.summary.applied', channelId, { fromSeq: 1, toSeq: 99, summary: 's' }),
    );
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('payload.toSeq');
  });

  it('fires the thresholds a branch conclusion crosses, without waiting for the next message', async () => {
    const channelId = await openChannel({ rules: [], default: { action: 'spawn_branch' } }, 100);
    expect((await say(channelId, 'go', {}, { tokens: 1 })).status).toBe(201);
    const decided = (await events(channelId)).find(
      (e) => e.messageType === 'channel.route.decided',
    );
    const branchId = String((decided?.payload as Json | undefined)?.branchId);
    await eventually(async () => (await rt('GET', `/branches/${branchId}/state`)).status === 200);
    const concluded = await rt(
      'POST',
      `/branches/${branchId}/conclusion`,
      envelope('branch.conclusion', channelId, {
        conclusion: 'z'.repeat(400), // ⌈400 / 4⌉ = 100 tokens: 101 % with the message
        artifactRefs: [],
        memoryRefs: [],
        tokenUsage: { input: 1, output: 1 },
      }),
    );
    expect(concluded.status).toBe(201);
    const hits = await eventually(async () => {
      const found = (await events(channelId)).filter(
        (e) => e.messageType === 'compactor.threshold.hit',
      );
      return found.length === 3 ? found : null;
    });
    expect(hits.map((h) => (h.payload as Json).level)).toEqual(['soft', 'aggressive', 'emergency']);
    expect(hits.map((h) => (h.payload as Json).utilization)).toEqual([1.01, 1.01, 1.01]);
    expect((await state(channelId)).level).toBe(3);
  });

  it("fires the thresholds the Visor's digest crosses", async () => {
    const channelId = await openChannel(respondOnly, 100);
    // 80 % exactly: no level crossed yet (each fires above its threshold).
    expect((await say(channelId, 'context', {}, { tokens: 80 })).status).toBe(201);
    await eventually(() =>
      env.DB.prepare(
        `SELECT 1 AS ok FROM runtime_channels WHERE channel_id = ?1 AND status = 'active'`,
      )
        .bind(channelId)
        .first(),
    );
    expect((await events(channelId)).map((e) => e.messageType)).not.toContain(
      'compactor.threshold.hit',
    );
    await cron(Date.now() + 1000);
    const evs = await events(channelId);
    const types = evs.map((e) => e.messageType);
    expect(types.indexOf('visor.bulletin.generated')).toBeGreaterThan(0);
    const hits = evs.filter((e) => e.messageType === 'compactor.threshold.hit');
    expect(hits[0]?.payload).toMatchObject({ level: 'soft', fromSeq: 2 });
    expect(types.indexOf('compactor.threshold.hit')).toBeGreaterThan(
      types.indexOf('visor.bulletin.generated'),
    );
    expect((await state(channelId)).liveTokens).toBe(
      (hits.at(-1)?.payload as Json | undefined)?.liveTokens,
    );
  });
});
