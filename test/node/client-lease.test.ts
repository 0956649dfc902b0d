import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WirestreamClient, WirestreamError } from '../../src/client';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

let server: DevServer;
let coordinator: WirestreamClient;

async function agent(name: string): Promise<WirestreamClient> {
  const sender = `agent:${name}`;
  const token = await tokenFor(server, sender);
  return new WirestreamClient({ baseUrl: server.url, sender, ...(token ? { token } : {}) });
}

async function offer(taskId: string): Promise<void> {
  await coordinator.append(`task:${taskId}:attempt:1`, {
    type: 'task.available',
    payload: { task_id: taskId, role: 'developer', attempt: 1 },
  });
}

beforeAll(async () => {
  server = await startDevServer();
  const token = await tokenFor(server, 'coordinator:lease-test', ['coordinator']);
  coordinator = new WirestreamClient({
    baseUrl: server.url,
    sender: 'coordinator:lease-test',
    ...(token ? { token } : {}),
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('claim with a lease', () => {
  it('gives the winner a fenced lease that heartbeats keep alive past its first expiry', async () => {
    const taskId = `t${Date.now().toString(36)}`;
    await offer(taskId);
    const quinn = await agent('quinn-07');
    const renewals: string[] = [];
    const lease = await quinn.claim(taskId, {
      role: 'developer',
      leaseMs: 3000,
      heartbeatMs: 800,
      onRenewed: (at) => renewals.push(at),
    });
    expect(lease.fencingToken).toBe('1.2');
    const firstExpiry = Date.parse(lease.expiresAt);

    // A second agent loses the race with the holder and its lease end.
    const ana = await agent('ana-02');
    const lost = await ana.claim(taskId, { role: 'developer' }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(WirestreamError);
    expect((lost as WirestreamError).code).toBe('task-already-claimed');
    expect((lost as WirestreamError).problem.holder).toBe('agent:quinn-07');

    // Well past the first expiry the lease still writes, thanks to heartbeats.
    await new Promise((r) => setTimeout(r, 4500));
    expect(renewals.length).toBeGreaterThanOrEqual(3);
    expect(Date.parse(lease.expiresAt)).toBeGreaterThan(firstExpiry);
    expect(lease.lost).toBeNull();
    await lease.append('task.started');
    const done = await lease.complete({ output_ref: 'r2://out/1' });
    expect(done.stream_seq).toBeGreaterThan(2);

    const wires = await quinn.read(`task:${taskId}:attempt:1`);
    const lifecycle = wires.wires.filter((w) => w.type !== 'task.heartbeat');
    expect(lifecycle.map((w) => w.type)).toEqual([
      'task.available',
      'task.claim',
      'task.started',
      'task.complete',
    ]);
    expect(lifecycle.slice(2).every((w) => w.payload.fencing_token === '1.2')).toBe(true);
  }, 60_000);

  it('reports the lease lost once it no longer holds, and refuses to write under it', async () => {
    const taskId = `u${Date.now().toString(36)}`;
    await offer(taskId);
    const quinn = await agent('quinn-08');
    let lostCode = '';
    const lease = await quinn.claim(taskId, {
      role: 'developer',
      heartbeatMs: 0,
      onLost: (error) => {
        lostCode = error.code;
      },
    });
    await lease.complete();
    // The lease ended with task.complete: a late lifecycle Wire is fenced off.
    const late = await lease
      .append('task.plan.created', { plan_ref: 'late' })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(WirestreamError);
    expect(lostCode).toBe('stale-fencing-token');
    expect(lease.lost?.code).toBe('stale-fencing-token');
  }, 60_000);
});
