import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { as, emit, type Json, SEED_EVENTS } from './helpers/gsd';

async function open(project: string, query: string) {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/events/ws${query}`, {
    headers: { ...(await as('agent:viewer')), Upgrade: 'websocket' },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket;
  if (!ws) throw new Error('no WebSocket');
  ws.accept();
  const frames: Json[] = [];
  const waiters: (() => void)[] = [];
  ws.addEventListener('message', (e) => {
    frames.push(JSON.parse(String(e.data)) as Json);
    for (const w of waiters.splice(0)) w();
  });
  const until = async (n: number) => {
    const deadline = Date.now() + 10_000;
    while (frames.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${frames.length} frames`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
  };
  return { ws, frames, until };
}

describe('following the events view over WebSocket', () => {
  it('sends what matched, then each new matching event as it is appended', async () => {
    const project = uid('ws');
    await emit(project, [SEED_EVENTS.taskStarted, SEED_EVENTS.taskCompleted]);
    const follow = await open(project, '?type=task:completed');
    await follow.until(1);
    expect(follow.frames[0]).toEqual({
      events: [{ ...SEED_EVENTS.taskCompleted, id: 2 }],
      lastEventId: 2,
    });
    await emit(project, SEED_EVENTS.taskStarted);
    await emit(project, { ...SEED_EVENTS.taskCompleted, task: 2 });
    await follow.until(2);
    expect(follow.frames[1]).toEqual({
      events: [{ ...SEED_EVENTS.taskCompleted, task: 2, id: 4 }],
      lastEventId: 4,
    });
    follow.ws.close(1000, 'done');
  });

  it('refuses a plain GET with a problem naming the upgrade', async () => {
    const res = await SELF.fetch(`https://ws.test/v1/projects/${uid('ws')}/events/ws`, {
      headers: await as('agent:viewer'),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).detail).toContain('Upgrade');
  });
});
