import { env, SELF } from 'cloudflare:test';
import { ALL_SCOPES, authHeaders } from './auth';
import { dumpReadModels } from './projection-fixtures';

/** Live-path helpers for projection tests: quiescence, rebuild, comparable dumps. */

async function counts() {
  const res = await SELF.fetch('https://ws.test/v1/topics', {
    headers: await authHeaders('human:ops', ALL_SCOPES),
  });
  const topics = ((await res.json()) as { topics: { total: number; anchored: number }[] }).topics;
  const d1 = await env.DB.prepare(
    `SELECT COUNT(*) AS n, COUNT(hcs_topic_id) AS anchored FROM wire_events`,
  ).first<{ n: number; anchored: number }>();
  return {
    total: topics.reduce((s, t) => s + t.total, 0),
    anchored: topics.reduce((s, t) => s + t.anchored, 0),
    projected: d1?.n ?? 0,
    projectedAnchored: d1?.anchored ?? 0,
  };
}

/**
 * Waits until every accepted Wire reached its topic, is anchored on the
 * stand-in, and is projected with its anchor — and nothing moved for a while
 * (system Wires caused by others travel through outboxes too).
 */
export async function untilQuiet(deadlineMs = 60_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last = '';
  let stableSince = Date.now();
  for (;;) {
    const c = await counts();
    const key = JSON.stringify(c);
    const settled =
      c.total > 0 &&
      c.total === c.anchored &&
      c.total === c.projected &&
      c.projected === c.projectedAnchored;
    if (key !== last) {
      last = key;
      stableSince = Date.now();
    } else if (settled && Date.now() - stableSince > 400) {
      return;
    }
    if (Date.now() > until) throw new Error(`not quiet after ${deadlineMs} ms: ${key}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RebuildLine {
  phase: string;
  [key: string]: unknown;
}

/** Calls the admin rebuild and collects its NDJSON progress lines. */
export async function runRebuild(body?: unknown): Promise<RebuildLine[]> {
  const res = await SELF.fetch('https://ws.test/v1/admin/rebuild', {
    method: 'POST',
    headers: {
      ...(await authHeaders('human:ops', ['admin'])),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status !== 200) throw new Error(`rebuild answered ${res.status}: ${await res.text()}`);
  return linesOf(res);
}

/**
 * D1 forgets `streams` (their Wires and stream state), so only HCS can give
 * them back, then a rebuild runs: its progress lines.
 */
export async function rebuildWithout(streams: string[]): Promise<RebuildLine[]> {
  const gone = JSON.stringify(streams);
  await env.DB.batch(
    ['wire_events', 'stream_state'].map((table) =>
      env.DB.prepare(
        `DELETE FROM ${table} WHERE stream_id IN (SELECT value FROM json_each(?))`,
      ).bind(gone),
    ),
  );
  return runRebuild();
}

/** Follows the running (or last) rebuild to its end: GET /v1/admin/rebuild. */
export async function followRebuild(): Promise<RebuildLine[]> {
  const res = await SELF.fetch('https://ws.test/v1/admin/rebuild', {
    headers: await authHeaders('human:ops', ['admin']),
  });
  if (res.status !== 200) throw new Error(`follow answered ${res.status}: ${await res.text()}`);
  return linesOf(res);
}

async function linesOf(res: Response): Promise<RebuildLine[]> {
  // NDJSON is UTF-8 text, though workerd's .text() warns on the media type.
  const text = new TextDecoder().decode(await res.arrayBuffer());
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as RebuildLine);
}

/**
 * Every row of every read model, minus `received_at`: HCS does not carry the
 * coordinator's receive time, so a rebuild uses the consensus time instead.
 */
export async function comparableDump() {
  const dump = await dumpReadModels(env.DB);
  return {
    ...dump,
    wire_events: dump.wire_events.map(({ received_at: _r, ...rest }) => rest),
  };
}
