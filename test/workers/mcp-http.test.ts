import { describe, expect, it } from 'vitest';
import { tokenFor } from './helpers/auth';
import { offer, uid } from './helpers/coordination';
import { call, connect, type Era, withMcp } from './helpers/mcp';

describe.each<Era>(['session', 'sessionless'])('MCP over Streamable HTTP, %s era', (era) => {
  it('negotiates its era, names the tool contract 1.0.0 and answers ping (2025 era)', () =>
    withMcp(era, async (c) => {
      expect(c.client.getServerVersion()).toMatchObject({ name: 'wirestream', version: '1.0.0' });
      expect(c.client.getNegotiatedProtocolVersion()).toBe(
        era === 'session' ? '2025-11-25' : '2026-07-28',
      );
      if (era === 'session') expect(c.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      else expect(c.transport.sessionId).toBeUndefined();
      // ping is a 2025-era method; 2026-07-28 drops it (the SDK refuses to send it).
      if (era === 'session') await expect(c.client.ping()).resolves.toBeDefined();
      const { tools } = await c.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['append_wire', 'read_stream', 'claim_task', 'list_haids']),
      );
      for (const t of tools) {
        expect(t.outputSchema?.properties).toHaveProperty('haid');
        expect(t.inputSchema.properties).toHaveProperty('client_identity');
      }
    }));

  it('attributes every call to the HAID {root}/{client} and registers it with role = client', async () => {
    const sub = `agent:${uid('h')}`;
    const c = await connect(era, { sub, name: 'cursor' });
    try {
      const stream = `project:${uid('p')}`;
      const appended = await call(c, 'append_wire', {
        stream_id: stream,
        type: 'review.concern',
        payload: { concern: 'naming' },
      });
      expect(appended.isError).toBeFalsy();
      expect(appended.structuredContent).toMatchObject({ stream_seq: 1, haid: `${sub}/cursor` });
      // The text block mirrors the structured content.
      expect(appended.text).toEqual(appended.structuredContent);

      // A later call of the same session keeps the identity; client_identity overrides per call.
      const read = await call(c, 'read_stream', { stream_id: stream });
      expect(read.structuredContent?.haid).toBe(`${sub}/cursor`);
      const other = await call(c, 'read_stream', { stream_id: stream, client_identity: 'copilot' });
      expect(other.structuredContent?.haid).toBe(`${sub}/copilot`);

      const listed = await call(c, 'list_haids');
      const mine = (listed.structuredContent.haids as { haid: string; role: string }[]).filter(
        (h) => h.haid.startsWith(sub),
      );
      expect(mine.map((h) => [h.haid, h.role]).sort()).toEqual([
        [`${sub}/copilot`, 'copilot'],
        [`${sub}/cursor`, 'cursor'],
      ]);
    } finally {
      await c.close();
    }
  });

  it('claims, heartbeats and completes a task with the fencing token handled for the agent', async () => {
    const task = uid('T');
    const role = uid('role');
    expect((await offer(task, role)).status).toBe(201);
    const agent = uid('ag');
    const c = await connect(era, { sub: `agent:${agent}` });
    const rival = await connect(era, { sub: `agent:${uid('rv')}`, name: 'copilot' });
    try {
      const claimed = await call(c, 'claim_task', { task_id: task, role });
      expect(claimed.structuredContent).toMatchObject({ fencing_token: '1.2', stream_seq: 2 });
      const lost = await call(rival, 'claim_task', { task_id: task, role });
      expect(lost.isError).toBe(true);
      expect(lost.text).toMatchObject({
        problem: { argument: 'task_id', status: 409, holder: `agent:${agent}` },
      });
      const stolen = await call(rival, 'complete_task', { task_id: task });
      expect(stolen.isError).toBe(true);
      expect(String(stolen.text.error)).toContain(`held by agent:${agent}`);

      const beat = await call(c, 'heartbeat_task', { task_id: task });
      expect(beat.structuredContent).toMatchObject({ fencing_token: '1.2', stream_seq: 3 });
      const done = await call(c, 'complete_task', { task_id: task, output_ref: 'r2://out/1' });
      expect(done.isError).toBeFalsy();
      const wires = await call(c, 'read_stream', { stream_id: `task:${task}:attempt:1` });
      const types = (wires.structuredContent.wires as { type: string }[]).map((w) => w.type);
      expect(types).toEqual(['task.available', 'task.claimed', 'task.heartbeat', 'task.complete']);
    } finally {
      await c.close();
      await rival.close();
    }
  });

  it('refuses bad arguments with an isError result that names the argument', () =>
    withMcp(era, async (c) => {
      const missing = await c.client.callTool({ name: 'read_stream', arguments: {} });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toContain('stream_id');

      const badClient = await c.client.callTool({
        name: 'read_stream',
        arguments: { stream_id: 'project:x', client_identity: 'Not A Name!' },
      });
      expect(badClient.isError).toBe(true);
      expect(JSON.stringify(badClient.content)).toContain('client_identity');

      const badPayload = await call(c, 'append_wire', {
        stream_id: `task:${uid('T')}:attempt:1`,
        type: 'task.blocked',
        payload: { task_id: 'x' },
      });
      expect(badPayload.isError).toBe(true);
      expect(badPayload.text.problem).toMatchObject({ argument: 'payload', status: 422 });
    }));
});

describe('MCP list_available_tasks', () => {
  it('lists the tasks offered to a role once projected', async () => {
    const role = uid('role');
    const task = uid('T');
    await offer(task, role);
    const c = await connect('sessionless', { token: await tokenFor({ sub: 'agent:lister' }) });
    try {
      let tasks: { task_id: string }[] = [];
      for (let i = 0; i < 50 && tasks.length === 0; i++) {
        const res = await call(c, 'list_available_tasks', { role });
        tasks = res.structuredContent?.tasks as { task_id: string }[];
        if (tasks.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(tasks.map((t) => t.task_id)).toEqual([task]);
    } finally {
      await c.close();
    }
  });
});
