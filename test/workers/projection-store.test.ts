import { env, SELF } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { projectWires, type Reducer, streamState, updateAnchors } from '../../src/projection';
import { upsertRows } from '../../src/projection/model-sql';
import type { BaseRow } from '../../src/projection/types';
import { authHeaders } from './helpers/auth';
import { dumpReadModels, resetReadModels, WireFactory } from './helpers/projection-fixtures';

const claim = {
  task_id: 'T1',
  agent: 'quinn-07',
  role: 'developer',
  lease_expires_at: '2026-05-01T16:30:00Z',
  capacity_units_reserved: 3,
};

async function watermark() {
  return env.DB.prepare(
    `SELECT watermark FROM projection_meta WHERE model = 'wire_events'`,
  ).first<number>('watermark');
}

describe('projectWires', () => {
  beforeEach(() => resetReadModels(env.DB));

  it('makes a task visible in every read model in one batch', async () => {
    const f = new WireFactory();
    const stream = 'task:T1:attempt:1';
    await projectWires(env.DB, [
      f.wire(stream, 'task.available', { task_id: 'T1', role: 'developer' }),
      f.wire(stream, 'task.claimed', claim),
      f.wire('agent:quinn-07', 'agent.capacity.updated', { available_units: 4, max_units: 6 }),
    ]);
    const dump = await dumpReadModels(env.DB);
    expect(dump.wire_events).toHaveLength(3);
    expect(dump.task_run_state).toMatchObject([
      { stream_id: stream, status: 'claimed', claimed_by: 'quinn-07', role: 'developer' },
    ]);
    expect(dump.stream_state.map((s) => [s.stream_id, s.status, s.wire_count])).toEqual([
      ['agent:quinn-07', 'unknown', 1],
      [stream, 'claimed', 2],
    ]);
    expect(dump.agent_runtime_state).toMatchObject([
      { agent_id: 'quinn-07', available_units: 4, max_units: 6 },
    ]);
    expect(await watermark()).toBe(3);
  });

  it('leaves every table unchanged when the same Wires are projected twice', async () => {
    const f = new WireFactory();
    const available = f.wire('task:T1:attempt:1', 'task.available', {
      task_id: 'T1',
      role: 'developer',
    });
    const claimed = f.wire('task:T1:attempt:1', 'task.claimed', claim);
    const done = f.wire('task:T1:attempt:1', 'task.complete', { task_id: 'T1', output_ref: 'g:1' });
    const wires = [available, claimed, done];
    await projectWires(env.DB, wires);
    const once = await dumpReadModels(env.DB);
    await projectWires(env.DB, wires);
    await projectWires(env.DB, [claimed, available]);
    expect(await dumpReadModels(env.DB)).toEqual(once);
    expect(await watermark()).toBe(3);
  });

  it('folds a Wire that arrived before its predecessor once the gap is filled', async () => {
    const f = new WireFactory();
    const a = f.wire('task:T1:attempt:1', 'task.available', { task_id: 'T1', role: 'developer' });
    const b = f.wire('task:T1:attempt:1', 'task.claimed', claim);
    const c = f.wire('task:T1:attempt:1', 'task.started', { task_id: 'T1' });
    await projectWires(env.DB, [a]);
    await projectWires(env.DB, [c]);
    const waiting = await dumpReadModels(env.DB);
    expect(waiting.task_run_state[0]).toMatchObject({ status: 'available', last_seq: 1 });
    await projectWires(env.DB, [b]);
    const filled = await dumpReadModels(env.DB);
    expect(filled.task_run_state[0]).toMatchObject({ status: 'started', last_seq: 3 });
  });

  it('folds a stream whose Wires two topics project at the same time', async () => {
    // An agent's Wires travel on the topic of their correlation: two
    // TopicObjects project them at once, each reading the rows before the
    // other's write lands. The agent's last word must still be read.
    const f = new WireFactory();
    const agent = 'agent:two-topics';
    const started = f.wire(
      agent,
      'agent.started',
      { role: 'dev' },
      { correlation_id: 'project:a' },
    );
    const stopped = f.wire(agent, 'agent.stopped', {}, { correlation_id: 'project:b' });
    await Promise.all([projectWires(env.DB, [stopped]), projectWires(env.DB, [started])]);

    const res = await SELF.fetch(
      `https://ws.test/v1/agents/two-topics?wait_for=${stopped.wire_id}&wait_ms=300`,
      { headers: await authHeaders('human:reader', ['read']) },
    );
    expect(res.headers.get('Wirestream-Wait-For')).toBe('visible');
    expect(await res.json()).toMatchObject({ agent_id: 'two-topics', status: 'stopped' });
    expect((await dumpReadModels(env.DB)).stream_state).toMatchObject([
      { stream_id: agent, last_seq: 2, status: 'stopped' },
    ]);
  });

  it('writes no read-model row once a rebuild has taken the model over', async () => {
    // Live projection reads which models are live before it writes; a rebuild
    // that begins in between must not get a row folded from the old rows. The
    // write itself checks, in its own transaction.
    const f = new WireFactory();
    const stream = 'task:T9:attempt:1';
    await projectWires(env.DB, [f.wire(stream, 'task.available', { task_id: 'T9', role: 'dev' })]);
    const [row] = (await dumpReadModels(env.DB)).stream_state;
    await env.DB.prepare(
      `UPDATE projection_meta SET status = 'rebuilding' WHERE model = 'stream_state'`,
    ).run();
    const moved = { ...(row as BaseRow), last_seq: 2, wire_count: 2 };
    await upsertRows(env.DB, streamState as unknown as Reducer<BaseRow>, [moved]).run();
    expect((await dumpReadModels(env.DB)).stream_state).toEqual([row]);
    // The rebuild's own writes land.
    await upsertRows(env.DB, streamState as unknown as Reducer<BaseRow>, [moved], {
      replace: true,
    }).run();
    expect((await dumpReadModels(env.DB)).stream_state).toMatchObject([{ last_seq: 2 }]);
  });

  it('records the HCS anchor of a projected Wire', async () => {
    const f = new WireFactory();
    const w = f.wire('project:P1', 'project.created', { name: 'kv' });
    await projectWires(env.DB, [w]);
    await updateAnchors(env.DB, [
      {
        wire_id: w.wire_id,
        stream_id: w.stream_id,
        hcs_topic_id: '0.0.1001',
        hcs_sequence_number: 7,
        consensus_timestamp: '1777651200.000000001',
      },
    ]);
    const dump = await dumpReadModels(env.DB);
    expect(dump.wire_events[0]).toMatchObject({
      hcs_topic_id: '0.0.1001',
      hcs_sequence_number: 7,
      consensus_timestamp: '1777651200.000000001',
    });
    const topics = await env.DB.prepare('SELECT topic_id FROM projection_topics').all();
    expect(topics.results).toEqual([{ topic_id: '0.0.1001' }]);
  });
});
