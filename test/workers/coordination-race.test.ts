import { describe, expect, it } from 'vitest';
import {
  claim,
  coordination,
  type FeedWire,
  lifecycle,
  offer,
  type Sent,
  setCapacity,
  uid,
  wiresOf,
} from './helpers/coordination';

const AGENTS = 100;
const TASKS = 20;
const CAPACITY = 2;
const ROUNDS = 3;
const unitsFor = (i: number) => 1 + (i % 2);

/** Agent k's claim order: every task, starting at k and striding by 7 (coprime with 20). */
function orderFor(k: number): number[] {
  return Array.from({ length: TASKS }, (_, r) => (k + r * 7) % TASKS);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Replays an agent stream's reservations: the lowest free units ever seen. */
function lowestFree(wires: FeedWire[]): number {
  let free = 0;
  let lowest = Number.POSITIVE_INFINITY;
  for (const w of wires) {
    if (w.type === 'agent.capacity.updated') free = Number(w.payload.available_units);
    if (w.type === 'agent.capacity.reserved') free -= Number(w.payload.units);
    if (w.type === 'agent.capacity.returned') free += Number(w.payload.units ?? 0);
    lowest = Math.min(lowest, free);
  }
  return lowest;
}

describe('role pool race', () => {
  it('100 agents race for 20 tasks: one winner each, losers told the holder, nobody over capacity, every unit back', async () => {
    const run = uid('race');
    const agents = Array.from({ length: AGENTS }, (_, i) => `${run}-a${i}`);
    const tasks = Array.from({ length: TASKS }, (_, i) => `${run}-t${i}`);
    await Promise.all(agents.map((a) => setCapacity(a, CAPACITY, CAPACITY)));
    await Promise.all(tasks.map((t) => offer(t, 'developer')));

    // All agents start at the same instant, five on each task, then move on
    // down their own order until each has tried ROUNDS tasks.
    const results: { task: string; agent: string; res: Sent; ms: number }[] = [];
    await Promise.all(
      agents.map(async (agent, k) => {
        for (const index of orderFor(k).slice(0, ROUNDS)) {
          const task = tasks[index] ?? '';
          const started = performance.now();
          const res = await claim(task, agent, { units: unitsFor(index) });
          results.push({ task, agent, res, ms: performance.now() - started });
        }
      }),
    );

    const winners = new Map<string, { agent: string; token: string }>();
    for (const { task, agent, res } of results.filter((r) => r.res.status === 201)) {
      expect(winners.has(task), `second winner for ${task}`).toBe(false);
      winners.set(task, { agent, token: String(res.body.fencing_token) });
    }
    for (const task of tasks.filter((t) => !winners.has(t))) {
      const tries = results
        .filter((r) => r.task === task)
        .map((r) => `${r.res.status} ${String(r.res.body.type)} ${String(r.res.body.detail)}`);
      console.log('NO WINNER', task, JSON.stringify(tries.slice(0, 6)));
    }
    expect(winners.size).toBe(TASKS);

    const codes = new Map<string, number>();
    for (const { task, res } of results.filter((r) => r.res.status !== 201)) {
      expect(res.status).toBe(409);
      const type = String(res.body.type);
      codes.set(type, (codes.get(type) ?? 0) + 1);
      if (type === '/problems/task-already-claimed') {
        expect(res.body.holder).toBe(`agent:${winners.get(task)?.agent}`);
      } else {
        expect(type).toBe('/problems/insufficient-capacity');
      }
    }

    const held = new Map<string, number>();
    tasks.forEach((t, i) => {
      const agent = winners.get(t)?.agent ?? '';
      held.set(agent, (held.get(agent) ?? 0) + unitsFor(i));
    });
    for (const units of held.values()) expect(units).toBeLessThanOrEqual(CAPACITY);
    for (const agent of held.keys()) {
      expect(lowestFree(await wiresOf(`agent:${agent}`))).toBeGreaterThanOrEqual(0);
    }

    await Promise.all(
      [...winners].map(([task, w]) => lifecycle(task, w.agent, 'task.complete', w.token)),
    );
    const states = await Promise.all(agents.map((a) => coordination(`agent:${a}`)));
    for (const state of states) {
      expect(state).toMatchObject({
        available_units: CAPACITY,
        pending_reservations: 0,
        held_reservations: 0,
      });
    }

    const all = results.map((r) => r.ms).sort((a, b) => a - b);
    const won = results
      .filter((r) => r.res.status === 201)
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    console.log(
      `claim latency inside vitest (harness queueing included; tools/claim-latency.mjs measures a fresh Miniflare) over ${all.length} racing claims: p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms; ` +
        `winning claims (reserve + decide + confirm): p50 ${percentile(won, 50).toFixed(1)} ms, p99 ${percentile(won, 99).toFixed(1)} ms; ` +
        `refusals ${JSON.stringify(Object.fromEntries(codes))}`,
    );
  }, 180_000);
});
