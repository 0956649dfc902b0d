import { describe, expect, it } from 'vitest';
import { modelNames } from '../../src/projection/models';
import { devServerForFile } from '../support/dev-server';

/**
 * A rebuild outlives the runtime: the whole of it (wrangler and workerd) is
 * killed with SIGKILL half-way through a rebuild, between two topics, and
 * started again on the same state. The rebuild goes on from where it stood,
 * without starting over, and the read models end as they were.
 */
const SENDER = 'agent:rebuild-crash';
const dev = devServerForFile(SENDER);

const auth = (bearer: string | undefined): Record<string, string> =>
  bearer ? { Authorization: `Bearer ${bearer}` } : {};

async function getJson<T>(path: string, bearer = dev.token): Promise<T> {
  const res = await fetch(`${dev.server.url}${path}`, { headers: auth(bearer) });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Line {
  phase: string;
  [key: string]: unknown;
}

/** Reads NDJSON lines from `res` until `stop` says so (or the body ends). */
async function readLines(res: Response, stop: (line: Line) => boolean): Promise<Line[]> {
  const lines: Line[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return lines;
    buffer += decoder.decode(value, { stream: true });
    let nl = buffer.indexOf('\n');
    while (nl !== -1) {
      const line = JSON.parse(buffer.slice(0, nl)) as Line;
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      if (stop(line)) {
        await reader.cancel();
        return lines;
      }
      nl = buffer.indexOf('\n');
    }
  }
}

async function until<T>(ms: number, probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a crash of the whole runtime mid-rebuild', () => {
  it('resumes the rebuild where it stood, and the read models end as they were', async () => {
    const run = Date.now().toString(36);
    // Two project streams: two topics, read one after the other.
    const projects = [`project:rc-a-${run}`, `project:rc-b-${run}`];
    for (const project of projects) {
      for (let i = 0; i < 15; i++) {
        const res = await fetch(`${dev.server.url}/v1/streams/${project}/wires`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...auth(dev.token) },
          body: JSON.stringify({
            wire: '1.1',
            wire_id: `rc-${run}-${i}`,
            stream_id: project,
            correlation_id: project,
            causation_id: null,
            type: 'review.concern',
            sender: SENDER,
            ts: new Date().toISOString(),
            payload: { concern: `concern ${i}` },
          }),
        });
        expect(res.status).toBe(201);
      }
    }
    type Topics = { topics: { hcs_topic_id: string; total: number; anchored: number }[] };
    const topics = await until(
      30_000,
      () => getJson<Topics>('/v1/topics', dev.server.adminToken),
      (t) => t.topics.length >= 2 && t.topics.every((x) => x.anchored === x.total),
    );
    const wiresOf = async () =>
      (
        await Promise.all(
          projects.map((p) =>
            getJson<{ wires: Record<string, unknown>[] }>(
              `/v1/wires?correlation_id=${p}&limit=100`,
            ),
          ),
        )
      ).flatMap((page) => page.wires);
    // Projected with their anchors (D1 hears of an anchor after the topic does).
    const before = await until(
      30_000,
      wiresOf,
      (w) => w.length === 30 && w.every((x) => x.hcs_topic_id),
    );
    const streamsBefore = await getJson<{ streams: unknown[] }>('/v1/streams?limit=500');

    // The last topic the rebuild reads cannot be read: it stops there, retrying.
    const ids = topics.topics.map((t) => t.hcs_topic_id).sort();
    const last = ids.at(-1) as string;
    await dev.server.faults({ topicId: last, mirrorUnavailable: true });
    const res = await fetch(`${dev.server.url}/v1/admin/rebuild`, {
      method: 'POST',
      headers: auth(dev.server.adminToken),
    });
    expect(res.status).toBe(200);
    const beforeCrash = await readLines(res, (l) => l.phase === 'retry');
    expect(beforeCrash.filter((l) => l.phase === 'read').map((l) => l.topic)).toEqual(
      ids.slice(0, -1),
    );

    await dev.server.crashAndRestart();
    await dev.server.faults({ topicId: last });
    const follow = await fetch(`${dev.server.url}/v1/admin/rebuild`, {
      headers: auth(dev.server.adminToken),
    });
    expect(follow.status).toBe(200);
    const lines = await readLines(follow, () => false);
    // One start, each topic read once: it went on, it did not start over.
    expect(lines.filter((l) => l.phase === 'start')).toHaveLength(1);
    expect(lines.filter((l) => l.phase === 'read').map((l) => l.topic)).toEqual(ids);
    expect(lines.at(-1)).toMatchObject({ phase: 'done', wires: 30, ahead_of_mirror: 0 });

    const projection = await getJson<{ models: { status: string }[]; rebuild: unknown }>(
      '/v1/admin/projection',
      dev.server.adminToken,
    );
    // wire_events and every read model the registry lists (each module adds its own).
    expect(projection.models.map((m) => m.status)).toEqual(
      Array(modelNames().length + 1).fill('ready'),
    );
    expect(projection.rebuild).toMatchObject({ status: 'done', full: true });
    // Every Wire is where it was, its receive time included.
    expect(await wiresOf()).toEqual(before);
    expect(await getJson('/v1/streams?limit=500')).toEqual(streamsBefore);
  }, 120_000);
});
