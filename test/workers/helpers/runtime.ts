import {
  createExecutionContext,
  createScheduledController,
  env,
  SELF,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { runtimeEnvelope } from '../../../src/client/runtime';
import worker from '../../../src/index';
import policy from '../../fixtures/runtime-policy.json';
import { authHeaders } from './auth';
import { uid } from './coordination';

/** Runtime v1 (seed 003) from a client's side: envelopes, posts, reads. */

export type Json = Record<string, unknown>;
export const AGENT = 'agent:runtime-test';

/** An Envelope v1 as a client builds it: the SDK's own builder. */
export const envelope = runtimeEnvelope;

export interface Answer {
  status: number;
  body: Json;
  res: Response;
}

export async function rt(
  method: string,
  path: string,
  body?: unknown,
  sender = AGENT,
): Promise<Answer> {
  const headers: Record<string, string> = { ...(await authHeaders(sender)) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await SELF.fetch(`https://ws.test/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = text ? (JSON.parse(text) as Json) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed, res };
}

/** Three rules before the default, as seed 003 describes a channel's policy. */
export const DEFAULT_POLICY: Json = policy;

/** Opens a channel; returns its id. */
export async function openChannel(
  policy: Json = DEFAULT_POLICY,
  contextBudget = 100_000,
): Promise<string> {
  const channelId = uid('ch');
  const res = await rt(
    'POST',
    '/channels',
    envelope('channel.opened', channelId, { policy, contextBudget }),
  );
  if (res.status !== 201)
    throw new Error(`channel not opened: ${res.status} ${JSON.stringify(res.body)}`);
  return channelId;
}

export async function say(channelId: string, text: string, more: Json = {}, payload: Json = {}) {
  return rt(
    'POST',
    `/channels/${channelId}/messages`,
    envelope('channel.message.received', channelId, { text, ...payload }, more),
  );
}

export async function events(channelId: string): Promise<Json[]> {
  const res = await rt('GET', `/channels/${channelId}/events?limit=500`);
  return ((res.body.events ?? []) as { envelope: Json }[]).map((e) => e.envelope);
}

export async function state(channelId: string): Promise<Json> {
  return (await rt('GET', `/channels/${channelId}/state`)).body;
}

/** Polls `probe` until it answers something truthy (D1 projection, outbox delivery). */
export async function eventually<T>(
  probe: () => Promise<T | null | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function spawnWorker(
  channelId: string,
  spec: Json,
  more: Json = {},
): Promise<{ workerId: string; answer: Answer }> {
  const workerId = uid('wk');
  const answer = await rt(
    'POST',
    '/workers',
    envelope(
      'worker.spawned',
      channelId,
      { goal: 'do the thing', toolset: ['shell'], mode: 'interactive', ...spec },
      { workerId, ...more },
    ),
  );
  return { workerId, answer };
}

export async function report(
  workerId: string,
  channelId: string,
  messageType: string,
  payload: Json,
  more: Json = {},
) {
  return rt('POST', `/workers/${workerId}/events`, envelope(messageType, channelId, payload, more));
}

export async function sha256Hex(content: string | Uint8Array): Promise<string> {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** `POST /v1/artifacts` with raw bytes. */
export async function uploadArtifact(
  content: string | Uint8Array,
  sha: string,
  channelId: string,
  type = 'application/json',
): Promise<{ status: number; body: Json }> {
  const res = await SELF.fetch(
    `https://ws.test/v1/artifacts?sha256=${sha}&channelId=${channelId}&name=a.bin`,
    {
      method: 'POST',
      headers: { ...(await authHeaders(AGENT)), 'Content-Type': type },
      body: content,
    },
  );
  return { status: res.status, body: (await res.json()) as Json };
}

/** A session touching every message type, with realistic (and some maximal) payloads. */
export async function session(): Promise<string[]> {
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
  const spawn = (await events(channelId)).find(
    (e) => (e.payload as Json).action === 'spawn_branch',
  );
  const branchId = (spawn?.payload as Json | undefined)?.branchId as string;
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
  await cron(Date.now() + 1000);
  return channels;
}

/** Runs the Worker's cron once, as Cron Triggers do. */
export async function cron(at: number): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: at, cron: '* * * * *' }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** A branch of a newly opened channel, spawned by its routing (a `spawn_branch` default). */
export async function spawnedBranch(): Promise<{ channelId: string; branchId: string }> {
  const channelId = await openChannel({ rules: [], default: { action: 'spawn_branch' } });
  await say(channelId, 'look into it');
  const decided = (await events(channelId)).find((e) => e.messageType === 'channel.route.decided');
  const branchId = String((decided?.payload as Json | undefined)?.branchId);
  await eventually(async () => (await rt('GET', `/branches/${branchId}/state`)).status === 200);
  return { channelId, branchId };
}

/** Posts a branch's conclusion (the four fields FR-4 allows). */
export function concludeBranch(branchId: string, channelId: string, conclusion = 'done') {
  return rt(
    'POST',
    `/branches/${branchId}/conclusion`,
    envelope('branch.conclusion', channelId, {
      conclusion,
      artifactRefs: [],
      memoryRefs: [],
      tokenUsage: { input: 1, output: 1 },
    }),
  );
}
