import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import {
  AGENT,
  envelope,
  eventually,
  openChannel,
  rt,
  sha256Hex,
  uploadArtifact,
} from './helpers/runtime';
import { registeredKey } from './helpers/signing';

/** `POST /v1/artifacts` as `sender`. */
async function uploadAs(
  sender: string,
  bytes: Uint8Array,
  sha: string,
  channelId: string,
  type: string,
) {
  const res = await SELF.fetch(
    `https://ws.test/v1/artifacts?sha256=${sha}&channelId=${channelId}`,
    {
      method: 'POST',
      headers: { ...(await authHeaders(sender)), 'Content-Type': type },
      body: bytes,
    },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function fetchContent(sha: string) {
  return SELF.fetch(`https://ws.test/v1/artifacts/sha256-${sha}/content`, {
    headers: await authHeaders(AGENT),
  });
}

/** An agent that has registered a signing key: its unsigned Wires are refused. */
async function keyedAgent(): Promise<string> {
  const agent = `agent:${uid('keyed')}`;
  await registeredKey(agent);
  return agent;
}

describe('Runtime v1 review fixes', () => {
  it('refuses the same bytes uploaded again as another type (409) and keeps serving the type they were stored with', async () => {
    const channelId = await openChannel();
    const bytes = new TextEncoder().encode(`{"a":"${uid('json')}"}`);
    const sha = await sha256Hex(bytes);
    expect((await uploadArtifact(bytes, sha, channelId, 'application/json')).status).toBe(201);
    const again = await uploadArtifact(bytes, sha, channelId, 'text/html');
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/artifact-exists');
    const res = await fetchContent(sha);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    expect(again.body.contentType).toBe('application/json');
    const same = await uploadArtifact(bytes, sha, channelId, 'application/json');
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ existing: true, contentType: 'application/json' });
    const row = await eventually(() =>
      env.DB.prepare('SELECT content_type FROM runtime_artifacts WHERE artifact_id = ?1')
        .bind(`sha256-${sha}`)
        .first<{ content_type: string }>(),
    );
    expect(row.content_type).toBe('application/json');
  });

  it('leaves nothing stored when the append refuses an upload', async () => {
    const channelId = await openChannel();
    const agent = await keyedAgent();
    const bytes = new TextEncoder().encode(`refused ${uid('bytes')}`);
    const sha = await sha256Hex(bytes);
    const refused = await uploadAs(agent, bytes, sha, channelId, 'text/plain');
    expect(refused.status).toBe(403);
    expect(String(refused.body.type)).toContain('signature-required');
    expect(await env.ARTIFACTS.head(`sha256-${sha}`)).toBeNull();
    expect((await fetchContent(sha)).status).toBe(404);
  });

  it("keeps someone else's artifact intact when a refused upload sends the same bytes", async () => {
    const channelId = await openChannel();
    const bytes = new TextEncoder().encode(`shared ${uid('bytes')}`);
    const sha = await sha256Hex(bytes);
    expect((await uploadArtifact(bytes, sha, channelId, 'text/plain')).status).toBe(201);
    const refused = await uploadAs(await keyedAgent(), bytes, sha, channelId, 'text/html');
    expect(refused.status).toBe(403);
    const res = await fetchContent(sha);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'answers 404 "not spawned" when a message is routed to a worker named %s that does not exist',
    async (workerId) => {
      const channelId = await openChannel();
      const res = await rt(
        'POST',
        `/channels/${channelId}/route/${workerId}`,
        envelope('channel.message.received', channelId, { text: 'hello' }, { workerId }),
      );
      expect(res.status).toBe(404);
      expect(String(res.body.detail)).toContain(`worker "${workerId}" was not spawned`);
    },
  );
});
