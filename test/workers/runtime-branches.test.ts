import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  envelope,
  events,
  eventually,
  type Json,
  openChannel,
  report,
  rt,
  say,
  sha256Hex,
  spawnWorker,
  state,
  uploadArtifact,
} from './helpers/runtime';

const CONCLUSION_FIELDS = ['artifactRefs', 'conclusion', 'memoryRefs', 'tokenUsage'];

describe('Runtime v1 branches', () => {
  it('acceptance 1: channel → branch → worker → the channel receives the conclusion only', async () => {
    const channelId = await openChannel();
    expect((await say(channelId, 'Investigate why the cache misses')).status).toBe(201);
    const decided = (await events(channelId)).find(
      (e) => e.messageType === 'channel.route.decided',
    );
    const branchId = (decided?.payload as Json | undefined)?.branchId as string;
    expect(branchId).toBeTruthy();
    const branch = await eventually(async () => {
      const b = await rt('GET', `/branches/${branchId}/state`);
      return b.status === 200 ? b.body : null;
    });
    expect(branch).toMatchObject({
      status: 'spawned',
      channelId,
      goal: 'Investigate why the cache misses',
    });

    // The branch's agent saves a memory and recalls it (FTS5 over D1).
    const memory = envelope(
      'memory.saved',
      channelId,
      { text: 'Cache keys include the session id, so hits are rare', tags: ['cache'] },
      { branchId },
    );
    expect((await rt('POST', `/branches/${branchId}/memory`, memory)).status).toBe(201);
    const recalled = await eventually(async () => {
      const r = await rt('GET', `/branches/${branchId}/memory?q=session%20keys`);
      const list = r.body.memories as Json[];
      return list?.length ? list : null;
    });
    expect(recalled[0]).toMatchObject({ memory_id: memory.messageId, branch_id: branchId });

    // The branch spawns a worker; the worker stores an artifact and completes.
    const { workerId } = await spawnWorker(
      channelId,
      { mode: 'fire_and_forget', toolset: ['profiler'] },
      { branchId },
    );
    const content = '{"misses": 912, "hits": 88}';
    const sha = await sha256Hex(content);
    const uploaded = await rt(
      'POST',
      `/artifacts?sha256=${sha}&channelId=${channelId}&name=profile.json`,
      undefined,
    );
    expect(uploaded.status).toBe(415); // no Content-Type: refused before anything is stored
    const up = await uploadArtifact(content, sha, channelId);
    expect(up.status).toBe(201);
    const artifactId = `sha256-${sha}`;
    expect(
      (
        await report(
          workerId,
          channelId,
          'worker.completed',
          {
            report: { summary: 'profiled: 91% misses', outcome: 'success' },
            artifactRefs: [artifactId],
            tokenUsage: { input: 1200, output: 300 },
          },
          { branchId },
        )
      ).status,
    ).toBe(201);
    await eventually(async () => {
      const b = (await rt('GET', `/branches/${branchId}/state`)).body;
      return (b.workers as Record<string, string>)[workerId] === 'completed';
    });

    // The branch concludes: only the four fields may go back.
    const four = {
      conclusion: 'x',
      artifactRefs: [],
      memoryRefs: [],
      tokenUsage: { input: 1, output: 1 },
    };
    const noisy = envelope(
      'branch.conclusion',
      channelId,
      { ...four, transcript: ['step 1', 'step 2'] },
      { branchId },
    );
    const refused = await rt('POST', `/branches/${branchId}/conclusion`, noisy);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('transcript');
    const withExtensions = envelope('branch.conclusion', channelId, four, {
      branchId,
      extensions: { transcript: 'all of it' },
    });
    expect((await rt('POST', `/branches/${branchId}/conclusion`, withExtensions)).status).toBe(422);

    const conclusion = envelope(
      'branch.conclusion',
      channelId,
      {
        conclusion: 'Session ids in cache keys: drop them to raise hits.',
        artifactRefs: [artifactId],
        memoryRefs: [memory.messageId],
        tokenUsage: { input: 2400, output: 500 },
      },
      { branchId },
    );
    expect((await rt('POST', `/branches/${branchId}/conclusion`, conclusion)).status).toBe(201);

    const channelEvents = await eventually(async () => {
      const evs = await events(channelId);
      return evs.some((e) => e.messageType === 'branch.conclusion') ? evs : null;
    });
    const received = channelEvents.find((e) => e.messageType === 'branch.conclusion') as Json;
    expect(Object.keys(received.payload as Json).sort()).toEqual(CONCLUSION_FIELDS);
    expect(received.branchId).toBe(branchId);
    // What the channel holds of the branch: its spawn decision and its conclusion, nothing else.
    const aboutBranch = channelEvents
      .filter((e) => e.branchId === branchId)
      .map((e) => e.messageType);
    expect(aboutBranch).toEqual(['channel.route.decided', 'branch.conclusion']);
    // What is stored for the branch: no transcript — its spawn, its worker's lifecycle, its conclusion.
    const branchWires = (await rt('GET', `/streams/branch:${branchId}/wires`)).body.wires as {
      type: string;
      payload: Json;
    }[];
    expect(branchWires.map((w) => w.type)).toEqual([
      'runtime.branch.spawned',
      'runtime.worker.spawned',
      'runtime.worker.completed',
      'runtime.branch.conclusion',
    ]);
    const stored = branchWires.at(-1)?.payload as Json;
    expect(
      Object.keys(stored)
        .filter((k) => k !== '$envelope')
        .sort(),
    ).toEqual(CONCLUSION_FIELDS);
    expect(Object.keys(stored.$envelope as Json).sort()).toEqual([
      'branchId',
      'channelId',
      'extensions',
      'protocolVersion',
    ]);
    // And in D1: the task row holds the conclusion's four fields.
    const row = await eventually(() =>
      env.DB.prepare(
        `SELECT result FROM runtime_tasks WHERE stream_id = ?1 AND status = 'concluded'`,
      )
        .bind(`branch:${branchId}`)
        .first<{ result: string }>(),
    );
    expect(Object.keys(JSON.parse(row.result)).sort()).toEqual(CONCLUSION_FIELDS);
    const s = await state(channelId);
    expect((s.branches as Record<string, Json>)[branchId]).toEqual({ status: 'concluded' });
    expect(
      (await rt('POST', `/branches/${branchId}/conclusion`, { ...conclusion, messageId: 'again1' }))
        .status,
    ).toBe(409);
  });

  it('refuses bad memory input and bad recall queries', async () => {
    const channelId = await openChannel();
    const empty = await rt(
      'POST',
      '/branches/b1/memory',
      envelope('memory.saved', channelId, { text: '' }),
    );
    expect(empty.status).toBe(422);
    expect(JSON.stringify(empty.body)).toContain('payload.text');
    expect((await rt('GET', '/branches/b1/memory')).status).toBe(400);
    expect((await rt('GET', '/branches/b1/memory?q=x&limit=0')).status).toBe(400);
    const odd = await rt('GET', '/branches/b1/memory?q=%22%20OR%20*%20NEAR(');
    expect(odd.status).toBe(200);
    expect((await rt('GET', '/branches/nope/state')).status).toBe(404);
  });

  it('refuses a recall query of only blanks (400 naming q) instead of failing on it', async () => {
    for (const q of ['%20%20', '%09', '%20%0A%20']) {
      const res = await rt('GET', `/branches/b1/memory?q=${q}`);
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.body.type).toBe('/problems/invalid-query');
      expect(res.body.errors).toEqual([{ path: 'q', message: 'q must hold at least one word' }]);
    }
    // Words without letters are still terms: found nowhere, but no failure.
    expect((await rt('GET', '/branches/b1/memory?q=..%20-')).status).toBe(200);
  });
});
