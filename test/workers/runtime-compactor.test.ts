import { describe, expect, it } from 'vitest';
import { envelope, events, eventually, openChannel, rt, say, state } from './helpers/runtime';

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
});
