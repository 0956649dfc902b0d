import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import {
  AGENT,
  eventually,
  openChannel,
  report,
  rt,
  sha256Hex,
  spawnWorker,
  uploadArtifact,
} from './helpers/runtime';

describe('Runtime v1 artifacts', () => {
  it('stores content in R2 and metadata in D1, and serves it with its content type', async () => {
    const channelId = await openChannel();
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 255]);
    const sha = await sha256Hex(bytes);
    const up = await uploadArtifact(bytes, sha, channelId, 'image/png');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ artifactId: `sha256-${sha}`, size: 8 });
    const res = await SELF.fetch(`https://ws.test/v1/artifacts/sha256-${sha}/content`, {
      headers: await authHeaders(AGENT),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('image/png');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const row = await eventually(() =>
      env.DB.prepare('SELECT * FROM runtime_artifacts WHERE artifact_id = ?1')
        .bind(`sha256-${sha}`)
        .first(),
    );
    expect(row).toMatchObject({
      sha256: sha,
      size: 8,
      content_type: 'image/png',
      channel_id: channelId,
      uploaded_by: AGENT,
    });
    // The same bytes again: already there.
    expect((await uploadArtifact(bytes, sha, channelId, 'image/png')).status).toBe(200);
  });

  it('refuses bytes that do not match their sha256, and stores nothing', async () => {
    const channelId = await openChannel();
    const claimed = await sha256Hex('what I meant to send');
    const res = await uploadArtifact('what I sent', claimed, channelId, 'text/plain');
    expect(res.status).toBe(422);
    expect(res.body.type).toContain('artifact-digest-mismatch');
    expect(String(res.body.detail)).toContain(await sha256Hex('what I sent'));
    expect(await env.ARTIFACTS.head(`sha256-${claimed}`)).toBeNull();
    expect((await rt('GET', `/artifacts/sha256-${claimed}/content`)).status).toBe(404);
    expect((await rt('GET', `/streams/artifact:sha256-${claimed}`)).status).toBe(404);
  });

  it('refuses too large, untyped or unnamed uploads precisely', async () => {
    const channelId = await openChannel();
    const big = new Uint8Array(1_048_577);
    const tooBig = await uploadArtifact(
      big,
      await sha256Hex(big),
      channelId,
      'application/octet-stream',
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.type).toContain('artifact-too-large');
    const noSha = await SELF.fetch(`https://ws.test/v1/artifacts?channelId=${channelId}`, {
      method: 'POST',
      headers: { ...(await authHeaders(AGENT)), 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect(noSha.status).toBe(400);
    expect(await noSha.text()).toContain('sha256');
    expect((await rt('GET', '/artifacts/not-an-id/content')).status).toBe(400);
  });

  it('keeps Wires to references: an inline artifact in a report is refused', async () => {
    const channelId = await openChannel();
    const { workerId } = await spawnWorker(channelId, { mode: 'fire_and_forget' });
    const inline = await report(workerId, channelId, 'worker.completed', {
      report: { summary: 'done' },
      artifactRefs: ['data:text/plain;base64,aGVsbG8='],
    });
    expect(inline.status).toBe(422);
    expect(JSON.stringify(inline.body)).toContain('payload.artifactRefs.0');
  });
});
