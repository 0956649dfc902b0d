import type { ProjectedWire } from '../../../src/projection';

/** Builds stored Wires for projection tests: each stream's seq counts from 1. */
export class WireFactory {
  #seq = new Map<string, number>();
  #n = 0;
  #clock = Date.parse('2026-05-01T16:00:00Z');

  wire(
    streamId: string,
    type: string,
    payload: Record<string, unknown> = {},
    more: Partial<
      Pick<ProjectedWire, 'correlation_id' | 'causation_id' | 'sender' | 'wire_id'>
    > = {},
  ): ProjectedWire {
    const seq = (this.#seq.get(streamId) ?? 0) + 1;
    this.#seq.set(streamId, seq);
    this.#n += 1;
    this.#clock += 1000;
    const at = new Date(this.#clock).toISOString();
    return {
      wire: '1.1',
      wire_id: more.wire_id ?? `wire_t${String(this.#n).padStart(6, '0')}`,
      stream_id: streamId,
      stream_seq: seq,
      correlation_id: more.correlation_id ?? null,
      causation_id: more.causation_id ?? null,
      type,
      sender: more.sender ?? 'system',
      ts: at,
      payload: payload as ProjectedWire['payload'],
      received_at: at,
    };
  }
}

/** Empties every derived table so each test starts from nothing. */
export async function resetReadModels(db: D1Database): Promise<void> {
  await db.batch([
    db.prepare('DELETE FROM wire_events'),
    db.prepare('DELETE FROM stream_state'),
    db.prepare('DELETE FROM task_run_state'),
    db.prepare('DELETE FROM agent_runtime_state'),
    db.prepare('DELETE FROM read_model_parts'),
    db.prepare('DELETE FROM project_progress'),
    db.prepare('DELETE FROM projection_topics'),
    db.prepare(
      `UPDATE projection_meta SET watermark = 0, last_received_at = NULL, status = 'ready'`,
    ),
  ]);
}

/** Every row of every derived table, ordered, for whole-model comparisons. */
export async function dumpReadModels(db: D1Database) {
  const [events, streams, tasks, agents, progress, parts] = await db.batch<Record<string, unknown>>(
    [
      db.prepare('SELECT * FROM wire_events ORDER BY stream_id, stream_seq'),
      db.prepare('SELECT * FROM stream_state ORDER BY stream_id'),
      db.prepare('SELECT * FROM task_run_state ORDER BY stream_id'),
      db.prepare('SELECT * FROM agent_runtime_state ORDER BY agent_id'),
      db.prepare('SELECT * FROM project_progress ORDER BY project_id'),
      db.prepare('SELECT * FROM read_model_parts ORDER BY model, stream_id'),
    ],
  );
  return {
    wire_events: events?.results ?? [],
    stream_state: streams?.results ?? [],
    task_run_state: tasks?.results ?? [],
    agent_runtime_state: agents?.results ?? [],
    project_progress: progress?.results ?? [],
    read_model_parts: parts?.results ?? [],
  };
}
