import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { type More, send, uid, wiresOf } from './helpers/coordination';
import { AGENT, eventually, openChannel, sha256Hex, uploadArtifact } from './helpers/runtime';

/** Fresh bytes, their sha256 and artifact id. */
async function fresh(label: string) {
  const bytes = new TextEncoder().encode(`${label} ${uid('bytes')}`);
  const sha = await sha256Hex(bytes);
  return { bytes, sha, artifactId: `sha256-${sha}` };
}

/** `GET /v1/artifacts/{id}/content` as a reader sees it. */
async function served(artifactId: string) {
  const res = await SELF.fetch(`https://ws.test/v1/artifacts/${artifactId}/content`, {
    headers: await authHeaders(AGENT),
  });
  return { status: res.status, type: res.headers.get('Content-Type'), bytes: await res.bytes() };
}

/** An `artifact.stored` Wire posted by hand on the generic append route. */
function handPosted(
  artifactId: string,
  size: number,
  contentType: string,
  type = 'runtime.artifact.stored',
  more: More = {},
) {
  return send(
    `artifact:${artifactId}`,
    type,
    AGENT,
    { artifactId, sha256: artifactId.slice('sha256-'.length), size, contentType },
    more,
  );
}

/** The `artifact.stored` Wires on the artifact's stream, as their content types. */
async function recordedTypes(artifactId: string): Promise<unknown[]> {
  const wires = await wiresOf(`artifact:${artifactId}`);
  return wires.filter((w) => w.type.endsWith('artifact.stored')).map((w) => w.payload.contentType);
}

describe('Runtime v1 artifacts: one record, matching what is stored', () => {
  it('stores one of several concurrent uploads of the same bytes: the same type again is already stored, another type is 409', async () => {
    const channelId = await openChannel();
    for (let round = 0; round < 3; round++) {
      const { bytes, sha, artifactId } = await fresh('race');
      const types = ['text/plain', 'text/html', 'text/plain', 'text/html'];
      const answers = await Promise.all(
        types.map((type) => uploadArtifact(bytes, sha, channelId, type)),
      );
      const won = answers.findIndex((a) => a.status === 201);
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      const winner = types[won];
      for (const [i, answer] of answers.entries()) {
        if (i === won) continue;
        if (types[i] === winner) {
          expect(answer.status).toBe(200);
          expect(answer.body).toMatchObject({ existing: true, contentType: winner });
        } else {
          expect(answer.status).toBe(409);
          expect(answer.body.type).toBe('/problems/artifact-exists');
          expect(answer.body.contentType).toBe(winner);
        }
      }
      expect(await recordedTypes(artifactId)).toEqual([winner]);
      const content = await served(artifactId);
      expect(content.type).toBe(winner);
      expect(content.bytes).toEqual(bytes);
      // The object itself was written once, by the upload that won.
      expect((await env.ARTIFACTS.head(artifactId))?.httpMetadata?.contentType).toBe(winner);
    }
  });

  it.each(['runtime.artifact.stored', 'artifact.stored'])(
    'refuses a hand-posted %s whose bytes were never uploaded; the upload then serves its own type',
    async (type) => {
      const channelId = await openChannel();
      const { bytes, sha, artifactId } = await fresh('hand');
      const posted = await handPosted(artifactId, bytes.byteLength, 'text/html', type);
      expect(posted.status).toBe(409);
      expect(posted.body.type).toBe('/problems/artifact-not-stored');
      expect(String(posted.body.detail)).toContain('no bytes are stored');
      expect((await uploadArtifact(bytes, sha, channelId, 'text/plain')).status).toBe(201);
      const content = await served(artifactId);
      expect(content.type).toBe('text/plain');
      expect(await recordedTypes(artifactId)).toEqual(['text/plain']);
    },
  );

  it("refuses a hand-posted artifact.stored that takes the upload's own wire id before it", async () => {
    const channelId = await openChannel();
    const { bytes, sha, artifactId } = await fresh('preempt');
    const posted = await handPosted(artifactId, bytes.byteLength, 'text/html', undefined, {
      wire_id: 'stored',
    });
    expect(posted.status).toBe(409);
    const up = await uploadArtifact(bytes, sha, channelId, 'text/plain');
    expect(up.status).toBe(201);
    expect((await served(artifactId)).type).toBe('text/plain');
    const row = await eventually(() =>
      env.DB.prepare('SELECT content_type FROM runtime_artifacts WHERE artifact_id = ?1')
        .bind(artifactId)
        .first<{ content_type: string }>(),
    );
    expect(row.content_type).toBe('text/plain');
  });

  it('refuses a second artifact.stored once the upload is recorded, whatever it says', async () => {
    const channelId = await openChannel();
    const { bytes, sha, artifactId } = await fresh('second');
    expect((await uploadArtifact(bytes, sha, channelId, 'text/plain')).status).toBe(201);
    for (const contentType of ['text/html', 'text/plain']) {
      const again = await handPosted(artifactId, bytes.byteLength, contentType);
      expect(again.status).toBe(409);
      expect(again.body.type).toBe('/problems/artifact-exists');
      expect(again.body.contentType).toBe('text/plain');
    }
    expect(await recordedTypes(artifactId)).toEqual(['text/plain']);
    expect((await served(artifactId)).type).toBe('text/plain');
  });

  it('accepts a hand-posted artifact.stored only as the stored bytes are: their size and content type', async () => {
    // Bytes in R2 with no record yet: an upload interrupted between its write and its Wire.
    const { bytes, sha, artifactId } = await fresh('orphan');
    await env.ARTIFACTS.put(artifactId, bytes, {
      httpMetadata: { contentType: 'text/plain' },
      sha256: sha,
    });
    const otherType = await handPosted(artifactId, bytes.byteLength, 'text/html');
    expect(otherType.status).toBe(409);
    expect(otherType.body).toMatchObject({
      type: '/problems/artifact-not-stored',
      contentType: 'text/plain',
      size: bytes.byteLength,
    });
    const otherSize = await handPosted(artifactId, bytes.byteLength + 1, 'text/plain');
    expect(otherSize.status).toBe(409);
    const wrongId = await send(`artifact:${artifactId}`, 'runtime.artifact.stored', AGENT, {
      artifactId: `sha256-${'0'.repeat(64)}`,
      sha256: sha,
      size: bytes.byteLength,
      contentType: 'text/plain',
    });
    expect(wrongId.status).toBe(422);
    expect(JSON.stringify(wrongId.body)).toContain('payload.artifactId');
    expect(await recordedTypes(artifactId)).toEqual([]);
    const matching = await handPosted(artifactId, bytes.byteLength, 'text/plain');
    expect(matching.status).toBe(201);
    const content = await served(artifactId);
    expect(content.type).toBe('text/plain');
    expect(content.bytes).toEqual(bytes);
  });
});
