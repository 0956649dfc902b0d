import { describe, expect, it } from 'vitest';
import { envelope, openChannel, report, rt, say, spawnWorker } from './helpers/runtime';
import { Subscriber } from './helpers/subscriber';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function summary(label: string, samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const out = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  console.log(
    `${label}: n=${samples.length} p50=${out.p50.toFixed(1)} ms p99=${out.p99.toFixed(1)} ms`,
  );
  return out;
}

describe('Runtime v1 latency (workerd under vitest-pool-workers)', () => {
  // ~9 s alone; a figure, not a pass mark, so a busy machine only slows it.
  it('measures route-decision latency and worker-message delivery latency', {
    timeout: 90_000,
  }, async () => {
    const channelId = await openChannel();
    const decisions: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      const res = await say(channelId, `message ${i}`);
      decisions.push(performance.now() - t0);
      expect(res.status).toBe(201);
    }
    const { workerId } = await spawnWorker(channelId, {
      mode: 'interactive',
      timeoutSeconds: 3600,
    });
    await report(workerId, channelId, 'worker.progress', { status: 'waiting' });
    const feed = await Subscriber.open(`worker:${workerId}`, 0);
    await feed.until(() => feed.seqs.includes(2));
    const deliveries: number[] = [];
    for (let i = 0; i < 50; i++) {
      const before = feed.seqs.length;
      const t0 = performance.now();
      const res = await rt(
        'POST',
        `/channels/${channelId}/route/${workerId}`,
        envelope('channel.message.received', channelId, { text: `go ${i}` }),
      );
      expect(res.status).toBe(201);
      await feed.until(() => feed.seqs.length > before);
      deliveries.push(performance.now() - t0);
    }
    feed.close();
    const decided = summary(
      'route decision (POST message → 201 with the decision stored)',
      decisions,
    );
    const delivered = summary(
      'worker delivery (POST route → frame on the worker feed)',
      deliveries,
    );
    expect(decided.p99).toBeLessThan(2000);
    expect(delivered.p99).toBeLessThan(3000);
  });
});
