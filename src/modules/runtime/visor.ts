import type { Env } from '../../env';
import { streamStub } from '../../stream/stub';
import { rtId, systemDraft } from './envelope';

/**
 * The Visor (FR-7), run by the Worker's cron (`ProtocolModule.scheduled`):
 * reads what the runtime's events made of the read models since the last
 * bulletin, builds a deterministic digest (same tables, same window → same
 * bytes), stores it as `visor.bulletin.generated` on `bulletin:<id>`
 * (projected into `runtime_memory_bulletins`) and delivers it into each
 * active channel. Nothing happens while no channel is active.
 */
export interface Bulletin {
  bulletinId: string;
  digest: string;
  window: { from: string; to: string };
  counts: {
    completed: number;
    failed: number;
    concluded: number;
    activeWorkers: number;
    activeChannels: number;
  };
  tokens: number;
}

const EPOCH = '1970-01-01T00:00:00.000Z';
const LIST = 8;

/** `b-20261125T1731`: one bulletin per cron minute. */
export function bulletinIdOf(at: number): string {
  return `b-${new Date(at).toISOString().slice(0, 16).replaceAll('-', '').replace(':', '')}`;
}

function names(ids: string[]): string {
  const shown = ids.slice(0, LIST).join(', ');
  return ids.length > LIST ? `${shown} +${ids.length - LIST}` : shown;
}

type Row = { task_id: string; kind: string; status: string; failure_reason: string | null };

export async function buildBulletin(
  db: D1Database,
  at: number,
): Promise<{ bulletin: Bulletin; channels: string[] }> {
  const to = new Date(at).toISOString();
  const last = await db
    .prepare('SELECT MAX(window_to) AS t FROM runtime_memory_bulletins WHERE window_to < ?1')
    .bind(to)
    .first<{ t: string | null }>();
  const from = last?.t ?? EPOCH;
  const [ended, active, channels, tokens] = await db.batch([
    db
      .prepare(
        `SELECT task_id, kind, status, failure_reason FROM runtime_tasks
          WHERE updated_at > ?1 AND updated_at <= ?2 AND status IN ('completed', 'failed', 'concluded')
          ORDER BY task_id`,
      )
      .bind(from, to),
    db.prepare(
      `SELECT task_id, kind, status, failure_reason FROM runtime_tasks
          WHERE kind = 'worker' AND status IN ('spawned', 'running', 'waiting') ORDER BY task_id`,
    ),
    db.prepare(
      `SELECT channel_id FROM runtime_channels WHERE status = 'active' ORDER BY channel_id`,
    ),
    db
      .prepare(
        'SELECT COALESCE(SUM(total_tokens), 0) AS n FROM runtime_token_usage WHERE updated_at > ?1 AND updated_at <= ?2',
      )
      .bind(from, to),
  ]);
  const done = (ended?.results ?? []) as Row[];
  const completed = done
    .filter((r) => r.kind === 'worker' && r.status === 'completed')
    .map((r) => r.task_id);
  const failed = done
    .filter((r) => r.kind === 'worker' && r.status === 'failed')
    .map((r) => `${r.task_id} (${r.failure_reason ?? 'error'})`);
  const concluded = done.filter((r) => r.kind === 'branch').map((r) => r.task_id);
  const running = ((active?.results ?? []) as Row[]).map((r) => `${r.task_id} ${r.status}`);
  const open = ((channels?.results ?? []) as { channel_id: string }[]).map((r) => r.channel_id);
  const used = ((tokens?.results ?? []) as { n: number }[])[0]?.n ?? 0;
  const bulletinId = bulletinIdOf(at);
  const lines = [
    `Bulletin ${bulletinId} (${from} to ${to}).`,
    `Completed ${completed.length}${completed.length ? `: ${names(completed)}` : ''}.`,
    `Failed ${failed.length}${failed.length ? `: ${names(failed)}` : ''}.`,
    `Concluded ${concluded.length}${concluded.length ? `: ${names(concluded)}` : ''}.`,
    `Active workers ${running.length}${running.length ? `: ${names(running)}` : ''}.`,
    `Tokens reported ${used}.`,
  ];
  return {
    bulletin: {
      bulletinId,
      digest: lines.join(' ').slice(0, 2000),
      window: { from, to },
      counts: {
        completed: completed.length,
        failed: failed.length,
        concluded: concluded.length,
        activeWorkers: running.length,
        activeChannels: open.length,
      },
      tokens: used,
    },
    channels: open,
  };
}

/** Builds, stores and delivers one bulletin; returns it (null when no channel is active). */
export async function runVisor(env: Env, at: number): Promise<Bulletin | null> {
  const { bulletin, channels } = await buildBulletin(env.DB, at);
  if (channels.length === 0) return null;
  const ts = new Date(at).toISOString();
  const payload = { ...bulletin };
  const stored = await streamStub(env, `bulletin:${bulletin.bulletinId}`).append(
    systemDraft({
      streamId: `bulletin:${bulletin.bulletinId}`,
      messageType: 'visor.bulletin.generated',
      wireId: 'generated',
      ts,
      traceId: bulletin.bulletinId,
      channelId: '*',
      payload,
    }),
  );
  if (!stored.ok) {
    console.warn('visor: bulletin not stored', bulletin.bulletinId, stored.code, stored.detail);
    return null;
  }
  await Promise.all(
    channels.map(async (channelId) => {
      const streamId = `channel:${channelId}`;
      const result = await streamStub(env, streamId).append(
        systemDraft({
          streamId,
          messageType: 'visor.bulletin.generated',
          wireId: rtId('bulletin', bulletin.bulletinId),
          ts,
          traceId: bulletin.bulletinId,
          channelId,
          payload,
        }),
      );
      if (!result.ok) console.warn('visor: not delivered', channelId, result.code, result.detail);
    }),
  );
  return bulletin;
}
