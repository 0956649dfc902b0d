import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { claim, offer, send, taskStream, uid } from './helpers/coordination';

interface FeedWire {
  stream_seq: number;
  type: string;
  causation_id: string;
  payload: { task_id: string; stream_id: string; source_wire_id: string };
}

async function watch(role: string, after: number) {
  const res = await SELF.fetch(`https://ws.test/v1/roles/${role}/ws?after=${after}`, {
    headers: { Upgrade: 'websocket', ...(await authHeaders('agent:watcher')) },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket as WebSocket;
  ws.accept();
  const seen: FeedWire[] = [];
  let caughtUp = false;
  ws.addEventListener('message', (event) => {
    const frame = JSON.parse(String(event.data)) as { kind: string; wires?: FeedWire[] };
    if (frame.kind === 'caught-up') caughtUp = true;
    // `anchored` frames also carry a `wires` list (anchor updates): not new Wires.
    if (frame.kind !== 'wires') return;
    for (const w of frame.wires ?? []) seen.push(w);
    const last = frame.wires?.at(-1);
    if (last) ws.send(JSON.stringify({ kind: 'ack', seq: last.stream_seq }));
  });
  const until = async (predicate: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`feed stalled at ${seen.length} Wires`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { ws, seen, until, caughtUp: () => caughtUp };
}

describe('role feeds', () => {
  it('delivers every task.available for the role live, and resumes from a cursor without gaps', async () => {
    const role = uid('pool');
    const first = await watch(role, 0);
    await first.until(first.caughtUp);
    const tasks = Array.from({ length: 5 }, () => uid('t'));
    for (const task of tasks.slice(0, 3)) expect((await offer(task, role)).status).toBe(201);
    await first.until(() => first.seen.length === 3);
    expect(first.seen.map((w) => w.payload.task_id)).toEqual(tasks.slice(0, 3));
    expect(first.seen[0]).toMatchObject({
      type: 'task.available',
      payload: { stream_id: taskStream(tasks[0] ?? '') },
    });
    expect(first.seen[0]?.causation_id).toBe(first.seen[0]?.payload.source_wire_id);
    const cursor = first.seen.at(-1)?.stream_seq ?? 0;
    first.ws.close(1000, 'bye');

    // Offered while nobody watched; another role's work stays out of this feed.
    for (const task of tasks.slice(3)) await offer(task, role);
    await offer(uid('other'), `${role}-x`);

    const resumed = await watch(role, cursor);
    await resumed.until(() => resumed.seen.length === 2);
    expect(resumed.seen.map((w) => w.stream_seq)).toEqual([cursor + 1, cursor + 2]);
    expect(resumed.seen.map((w) => w.payload.task_id)).toEqual(tasks.slice(3));
    resumed.ws.close(1000, 'bye');

    const page = await SELF.fetch(`https://ws.test/v1/roles/${role}/wires?after=1&limit=2`, {
      headers: await authHeaders('agent:watcher'),
    });
    const body = (await page.json()) as {
      wires: FeedWire[];
      last_seq: number;
      next_after: number | null;
    };
    expect(body.wires.map((w) => w.stream_seq)).toEqual([2, 3]);
    expect(body).toMatchObject({ last_seq: 5, next_after: 3 });
  });

  it('is written by task streams only', async () => {
    const role = uid('pool');
    const res = await send(`role:${role}`, 'task.available', 'agent:forger', {
      task_id: 'x',
      role,
    });
    expect([403, 409]).toContain(res.status);
    const bad = await SELF.fetch('https://ws.test/v1/roles/no%20spaces/wires', {
      headers: await authHeaders('agent:watcher'),
    });
    expect(bad.status).toBe(400);
  });

  it('carries offers only: claims stay on the task stream', async () => {
    const role = uid('pool');
    const task = uid('t');
    await offer(task, role);
    expect((await claim(task, 'a', { role })).status).toBe(201);
    const page = await SELF.fetch(`https://ws.test/v1/roles/${role}/wires`, {
      headers: await authHeaders('agent:watcher'),
    });
    expect(((await page.json()) as { wires: FeedWire[] }).wires).toHaveLength(1);
  });
});
