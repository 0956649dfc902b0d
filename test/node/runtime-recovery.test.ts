import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerForFile } from '../support/dev-server';

/**
 * Runtime v1, acceptance 6: the whole runtime (wrangler and workerd) is
 * killed with SIGKILL and started again on the same state. Channels (with
 * their live context and policy), tasks (workers and branches with their
 * status), events, artifacts (R2 and D1) and bulletins come back, and the
 * runtime carries on from where it was: an interactive worker still takes a
 * routed message, a branch still concludes into its channel.
 */
const SENDER = 'agent:runtime-recovery';
const dev = devServerForFile(SENDER);
type Json = Record<string, unknown>;

const auth = (): Record<string, string> =>
  dev.token ? { Authorization: `Bearer ${dev.token}` } : {};

async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${dev.server.url}/v1${path}`, {
    method,
    headers: { ...auth(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

let n = 0;
function envelope(messageType: string, channelId: string, payload: Json, more: Json = {}): Json {
  n += 1;
  return {
    protocolVersion: '1.0',
    messageId: `rec-${Date.now().toString(36)}-${n}`,
    messageType,
    ts: new Date().toISOString(),
    traceId: 'recovery',
    channelId,
    payload,
    extensions: {},
    ...more,
  };
}

async function eventually<T>(ms: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function snapshot(channelId: string, workerId: string, branchId: string, artifactId: string) {
  const content = await fetch(`${dev.server.url}/v1/artifacts/${artifactId}/content`, {
    headers: auth(),
  });
  return {
    channel: (await api('GET', `/channels/${channelId}/state`)).body,
    worker: (await api('GET', `/workers/${workerId}/state`)).body,
    branch: (await api('GET', `/branches/${branchId}/state`)).body,
    events: (await api('GET', `/channels/${channelId}/events?limit=500`)).body,
    artifact: { type: content.headers.get('Content-Type'), bytes: await content.text() },
    bulletins: (await api('GET', '/bulletins?limit=100')).body,
  };
}

describe('Runtime v1 across a crash of the whole runtime', () => {
  it('acceptance 6: restores channels, tasks, events, artifacts and bulletins, and carries on', async () => {
    const channelId = `rec-${Date.now().toString(36)}`;
    /** POSTs an envelope of this channel to `path`: the status. */
    const posted = async (path: string, type: string, payload: Json, more?: Json) =>
      (await api('POST', path, envelope(type, channelId, payload, more))).status;
    const policy = {
      rules: [
        { id: 'research', when: { textIncludes: ['research'] }, route: { action: 'spawn_branch' } },
      ],
      default: { action: 'respond' },
    };
    expect(await posted('/channels', 'channel.opened', { policy, contextBudget: 500 })).toBe(201);
    expect(
      await posted(`/channels/${channelId}/messages`, 'channel.message.received', {
        text: 'research the outage',
      }),
    ).toBe(201);
    const events = (await api('GET', `/channels/${channelId}/events`)).body.events as {
      envelope: Json;
    }[];
    const branchId = (events.at(-1)?.envelope.payload as Json | undefined)?.branchId as string;
    const workerId = `${channelId}-helper`;
    expect(
      await posted(
        '/workers',
        'worker.spawned',
        { goal: 'assist', toolset: ['shell'], mode: 'interactive', timeoutSeconds: 3600 },
        { workerId },
      ),
    ).toBe(201);
    expect(
      await posted(`/workers/${workerId}/events`, 'worker.progress', { status: 'waiting' }),
    ).toBe(201);
    const bytes = 'outage timeline: 10:02 deploy, 10:05 errors';
    const sha = createHash('sha256').update(bytes).digest('hex');
    const up = await fetch(`${dev.server.url}/v1/artifacts?sha256=${sha}&channelId=${channelId}`, {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'text/plain; charset=utf-8' },
      body: bytes,
    });
    expect(up.status).toBe(201);
    const artifactId = `sha256-${sha}`;
    await eventually(
      20_000,
      async () => (await api('GET', `/branches/${branchId}/state`)).status === 200 || null,
    );
    // The Visor on the cron (wrangler dev runs it on /__scheduled).
    await eventually(30_000, async () => {
      await fetch(`${dev.server.url}/__scheduled?cron=*+*+*+*+*`);
      const b = (await api('GET', '/bulletins')).body.bulletins as Json[];
      return b.length > 0 ? b : null;
    });
    const digest = await eventually(20_000, async () => {
      const evs = (await api('GET', `/channels/${channelId}/events?limit=500`)).body.events as {
        envelope: Json;
      }[];
      return evs.some((e) => e.envelope.messageType === 'visor.bulletin.generated') || null;
    });
    expect(digest).toBe(true);
    const before = await snapshot(channelId, workerId, branchId, artifactId);
    expect(before.worker.status).toBe('waiting');
    expect(before.artifact).toEqual({ type: 'text/plain; charset=utf-8', bytes });

    await dev.server.crashAndRestart();

    const after = await snapshot(channelId, workerId, branchId, artifactId);
    expect(after).toEqual(before);
    // And it carries on: the interactive worker takes a routed message...
    const routed = await api(
      'POST',
      `/channels/${channelId}/route/${workerId}`,
      envelope('channel.message.received', channelId, { text: 'check the 10:02 deploy' }),
    );
    expect(routed.status).toBe(201);
    expect((await api('GET', `/workers/${workerId}/state`)).body.status).toBe('running');
    // ... and the branch concludes into its channel.
    const conclusion = {
      conclusion: 'The 10:02 deploy caused it.',
      artifactRefs: [artifactId],
      memoryRefs: [],
      tokenUsage: { input: 900, output: 120 },
    };
    expect(
      await posted(`/branches/${branchId}/conclusion`, 'branch.conclusion', conclusion, {
        branchId,
      }),
    ).toBe(201);
    await eventually(20_000, async () => {
      const s = (await api('GET', `/channels/${channelId}/state`)).body;
      return (s.branches as Record<string, Json>)[branchId]?.status === 'concluded' || null;
    });
  }, 180_000);
});
