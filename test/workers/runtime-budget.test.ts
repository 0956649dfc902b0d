import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import {
  budgetViolations,
  PAYLOAD_BUDGETS,
  payloadBytes,
  V1_MESSAGE_TYPES,
} from '../../src/modules/runtime/payloads';
import {
  DEFAULT_POLICY,
  envelope,
  events,
  eventually,
  openChannel,
  report,
  rt,
  say,
  sha256Hex,
  spawnWorker,
  uploadArtifact,
} from './helpers/runtime';

type Json = Record<string, unknown>;

/** A session touching every message type, with realistic (and some maximal) payloads. */
async function session(): Promise<string[]> {
  const channelId = await openChannel(DEFAULT_POLICY, 1200);
  const channels = [channelId];
  for (let i = 0; i < 6; i++)
    await say(channelId, `status update ${i}: tests green, deploy pending`);
  await say(
    channelId,
    'research the flaky test in the ledger module',
    {},
    { metadata: { source: 'slack' } },
  );
  await say(channelId, 'build the docs site');
  await say(channelId, 'x'.repeat(4000)); // the largest message a channel takes
  const branchId = (
    (await events(channelId)).find((e) => (e.payload as Json).action === 'spawn_branch')
      ?.payload as Json
  ).branchId as string;
  await eventually(async () => (await rt('GET', `/branches/${branchId}/state`)).status === 200);
  const memory = envelope(
    'memory.saved',
    channelId,
    { text: 'The ledger test races the alarm', tags: ['flaky'] },
    { branchId },
  );
  await rt('POST', `/branches/${branchId}/memory`, memory);
  const content = 'trace: alarm fired before commit';
  const sha = await sha256Hex(content);
  await uploadArtifact(content, sha, channelId, 'text/plain');
  const { workerId } = await spawnWorker(
    channelId,
    { mode: 'interactive', toolset: ['shell', 'git'] },
    { branchId },
  );
  for (const status of ['running', 'waiting', 'running']) {
    await report(
      workerId,
      channelId,
      'worker.progress',
      { status, note: 'bisecting', percent: 40 },
      { branchId },
    );
  }
  await report(
    workerId,
    channelId,
    'worker.completed',
    {
      report: {
        summary: 'Race between alarm and commit; fixed by awaiting the gate',
        outcome: 'success',
      },
      artifactRefs: [`sha256-${sha}`],
      tokenUsage: { input: 5200, output: 800 },
    },
    { branchId },
  );
  await rt(
    'POST',
    `/branches/${branchId}/conclusion`,
    envelope(
      'branch.conclusion',
      channelId,
      {
        conclusion: 'The flaky ledger test raced the alarm; fixed.',
        artifactRefs: [`sha256-${sha}`],
        memoryRefs: [memory.messageId as string],
        tokenUsage: { input: 6000, output: 1000 },
      },
      { branchId },
    ),
  );
  const failing = await spawnWorker(channelId, { mode: 'fire_and_forget' });
  await report(failing.workerId, channelId, 'worker.failed', {
    reason: 'error',
    message: 'npm ci failed: ENOSPC',
  });
  await rt(
    'POST',
    `/channels/${channelId}/summaries`,
    envelope('compactor.summary.applied', channelId, {
      fromSeq: 2,
      toSeq: 10,
      summary: 'Status updates; a flaky test investigated and fixed.',
      summaryTokens: 40,
    }),
  );
  await eventually(() =>
    env.DB.prepare(
      `SELECT 1 AS ok FROM runtime_channels WHERE channel_id = ?1 AND status = 'active'`,
    )
      .bind(channelId)
      .first(),
  );
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: Date.now() + 1000, cron: '* * * * *' }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return channels;
}

describe('Runtime v1 token economy', () => {
  it('acceptance 5: no message type exceeds its documented payload budget (average or largest)', async () => {
    await session();
    const rows = await eventually(async () => {
      const r = await env.DB.prepare(
        `SELECT type, payload FROM wire_events WHERE type LIKE 'runtime.%'`,
      ).all<{
        type: string;
        payload: string;
      }>();
      const types = new Set(r.results.map((x) => x.type.slice('runtime.'.length)));
      return V1_MESSAGE_TYPES.every((t) => types.has(t)) ? r.results : null;
    }, 20_000);
    const samples = rows.map((r) => ({
      messageType: r.type.slice('runtime.'.length),
      bytes: payloadBytes(JSON.parse(r.payload)),
    }));
    const table = Object.keys(PAYLOAD_BUDGETS).map((type) => {
      const sizes = samples.filter((s) => s.messageType === type).map((s) => s.bytes);
      const avg = sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : 0;
      return `${type.padEnd(28)} n=${String(sizes.length).padStart(3)} avg=${String(avg).padStart(5)} max=${String(Math.max(0, ...sizes)).padStart(5)} budget=${PAYLOAD_BUDGETS[type as keyof typeof PAYLOAD_BUDGETS].avg}/${PAYLOAD_BUDGETS[type as keyof typeof PAYLOAD_BUDGETS].max}`;
    });
    console.log(`payload bytes per message type:\n${table.join('\n')}`);
    expect(budgetViolations(samples)).toEqual([]);
  });

  it('fails when a type goes over its budget', () => {
    const budget = PAYLOAD_BUDGETS['worker.progress'];
    expect(budgetViolations([{ messageType: 'worker.progress', bytes: budget.max + 1 }])).toEqual([
      `worker.progress: average ${budget.max + 1} B > budget ${budget.avg} B`,
      `worker.progress: largest ${budget.max + 1} B > budget ${budget.max} B`,
    ]);
    expect(budgetViolations([{ messageType: 'mystery.type', bytes: 1 }])).toEqual([
      'mystery.type: no documented budget',
    ]);
  });
});
