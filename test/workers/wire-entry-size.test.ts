import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, readWires, untilAnchored } from './helpers/anchoring';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { as, type Json, SEED_EVENTS } from './helpers/gsd';
import { problemOf } from './helpers/wires';

/**
 * Every Wire a stream stores must fit a log entry once anchored (a tlog-tiles
 * entry holds at most 65,535 bytes), whichever entry point built it: the
 * generic append reads at most WIRE_MAX_BYTES (8192 here), but a GSD config
 * is read up to 64 KiB, and RFC 8785 writes `1e20` as its 21 digits. Before
 * the stream checked, such a Wire got its 200, became a leaf no entry bundle
 * can hold, and the topic's R2 archive stopped there for good.
 */

interface Anchoring {
  running_mode: string;
  archive: { archived_size: number; last_error: string | null };
}

/** PUT a GSD config, sent as `raw` text (so `1e20` stays four characters). */
async function putConfig(project: string, raw: string) {
  return SELF.fetch(`https://ws.test/v1/projects/${project}/config`, {
    method: 'PUT',
    headers: {
      ...(await coordinatorHeaders('coordinator:orch')),
      'Content-Type': 'application/json',
    },
    body: raw,
  });
}

async function logMode(topic: string): Promise<void> {
  const set = await api(`/v1/topics/${topic}/anchoring`, {
    method: 'PUT',
    body: JSON.stringify({ mode: 'log', every: 1, ms: 60_000 }),
  });
  expect(set.status).toBe(200);
}

async function archiveOf(topic: string): Promise<Anchoring> {
  return (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as Anchoring;
}

describe('a Wire larger than a log entry once anchored', () => {
  it('is refused with a 413 naming its size; what fits is kept, anchored and archived', async () => {
    const project = uid('entry');
    const topic = `gsd.${project}`;
    await logMode(topic);

    // 12,000 numbers in 60 KB of body: 264 KB once written as RFC 8785 does.
    const inflated = `{"numbers":[${Array.from({ length: 12_000 }, () => '1e20').join(',')}]}`;
    expect(inflated.length).toBeLessThan(64 * 1024);
    const refused = await putConfig(project, inflated);
    expect(refused.status).toBe(413);
    const problem = await problemOf(refused);
    expect(problem.type).toBe('/problems/envelope-too-large');
    expect(problem.detail).toMatch(/would take \d{6} bytes once anchored/);
    expect(problem.detail).toContain('at most 65535 bytes');

    // A config just inside the body limit, whose Wire still outgrows an entry.
    const near = await putConfig(project, JSON.stringify({ notes: 'n'.repeat(65_400) }));
    expect(near.status).toBe(413);

    // Nothing of either was stored.
    expect(await readWires(`gsd:${project}`)).toEqual([]);

    // A large config that fits is taken, becomes a leaf, and the archive copies it.
    const fits = await putConfig(project, JSON.stringify({ notes: 'n'.repeat(60_000) }));
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as Json).id).toBe(1);
    const [wire] = await untilAnchored(`gsd:${project}`, [topic], 60_000);
    expect(wire?.anchor.status).toBe('anchored');
    const deadline = Date.now() + 30_000;
    let view = await archiveOf(topic);
    while (view.archive.archived_size < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      view = await archiveOf(topic);
    }
    expect(view.running_mode).toBe('log');
    expect(view.archive).toEqual({ archived_size: 1, last_error: null });
  }, 120_000);

  it('refuses a batch of GSD events whole, naming the event that would not fit', async () => {
    const project = uid('entry-batch');
    const event = (notes: string) => ({ ...SEED_EVENTS.taskStarted, notes });
    const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events`, {
      method: 'POST',
      headers: { ...(await as('agent:gsd-executor')), 'Content-Type': 'application/json' },
      body: JSON.stringify([event('fine'), event('n'.repeat(70_000))]),
    });
    expect(res.status).toBe(413);
    const problem = await problemOf(res);
    expect(problem.detail).toMatch(/^events\[1\]: the Wire would take 70\d{3} bytes once anchored/);
    expect(await readWires(`gsd:${project}`)).toEqual([]);
  });
});
