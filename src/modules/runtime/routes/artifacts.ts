import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  parseQuery,
  principalOf,
  problem,
  requireStream,
} from '../../../api/module-kit';
import { intVar } from '../../../env';
import { fail, newWireId } from '../../../protocol';
import { PROTOCOL_VERSION } from '../envelope';
import { appendEnvelope } from './append-envelope';
import { recordedArtifact, storingBytes } from './artifact-store';

/**
 * Artifacts: content in R2 (`ARTIFACTS`, keyed by `sha256-<hex>`), metadata
 * as an `artifact.stored` event on `artifact:sha256-<hex>`, projected into
 * D1 (`runtime_artifacts`). The upload names its SHA-256; bytes that do not
 * hash to it, and uploads the append refuses, leave nothing stored. The same
 * bytes again answer the artifact as first recorded, or 409 when sent as
 * another type. Content is served with the Content-Type its event records,
 * which the stream accepts only as R2 holds it (`kinds/artifact.ts`). Wires
 * carry only the reference `sha256-<hex>`.
 */
export const artifacts = new Hono<AppEnv>();

const Hex = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex characters');
/** `POST /v1/artifacts` */
export const UploadQuery = {
  sha256: Hex,
  channelId: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/, 'channelId must be a channel id'),
  name: z.string().min(1).max(200).optional(),
  traceId: z.string().min(1).max(256).optional(),
};
const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;.*)?$/i;
const ArtifactId = /^sha256-[0-9a-f]{64}$/;

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

artifacts.post('/artifacts', async (c) => {
  const parsed = parseQuery(c, UploadQuery);
  if (!parsed.ok) return problem(c, parsed);
  const { sha256, channelId, name, traceId } = parsed.query;
  const contentType = c.req.header('Content-Type') ?? '';
  if (!CONTENT_TYPE.test(contentType) || contentType.length > 200)
    return problem(
      c,
      fail(
        'unsupported-media-type',
        `Content-Type must name the artifact's media type, got "${contentType}"`,
      ),
    );
  const max = intVar(c.env.ARTIFACT_MAX_BYTES, 1_048_576);
  const declared = Number(c.req.header('Content-Length'));
  const tooLarge = (size: number) =>
    fail('artifact-too-large', `the artifact is ${size} bytes; the limit is ${max} bytes`, {
      extra: { limit_bytes: max },
    });
  if (Number.isFinite(declared) && declared > max) return problem(c, tooLarge(declared));
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > max) return problem(c, tooLarge(bytes.byteLength));
  const actual = hex(await crypto.subtle.digest('SHA-256', bytes));
  if (actual !== sha256)
    return problem(
      c,
      fail(
        'artifact-digest-mismatch',
        `the bytes hash to ${actual}, not to the sha256 given (${sha256}); nothing was stored`,
        {
          errors: [{ path: 'sha256', message: 'does not match the bytes' }],
        },
      ),
    );
  const artifactId = `sha256-${sha256}`;
  const streamId = `artifact:${artifactId}`;
  const denied = requireStream(c, streamId);
  if (denied) return denied;
  const envelope = {
    protocolVersion: PROTOCOL_VERSION,
    messageId: 'stored',
    messageType: 'artifact.stored',
    ts: new Date().toISOString(),
    traceId: traceId ?? newWireId(),
    channelId,
    payload: {
      artifactId,
      sha256,
      size: bytes.byteLength,
      contentType,
      ...(name === undefined ? {} : { name }),
    },
    extensions: { uploadedBy: principalOf(c).sub },
  };
  // The bytes reach R2 only once the append's guards pass (artifact-store.ts).
  const stored = await appendEnvelope(
    c,
    streamId,
    envelope,
    storingBytes(c.env, { artifactId, sha256, bytes, contentType }),
  );
  if (stored.status === 409) {
    // The same bytes uploaded again (or at the same time): the artifact is
    // already there, as first recorded; as another type, a conflict.
    const recorded = await recordedArtifact(c.env, artifactId);
    if (recorded?.contentType === contentType)
      return c.json({ artifactId, sha256, ...recorded, existing: true }, 200, {
        Location: `/v1/artifacts/${artifactId}/content`,
      });
    if (recorded)
      return problem(
        c,
        fail(
          'artifact-exists',
          `artifact "${artifactId}" is already stored as "${recorded.contentType}", not as "${contentType}"; the same bytes are one artifact`,
          { extra: { contentType: recorded.contentType, size: recorded.size } },
        ),
      );
  }
  if (stored.status >= 300) return stored;
  return c.json({ artifactId, sha256, size: bytes.byteLength, contentType }, 201, {
    Location: `/v1/artifacts/${artifactId}/content`,
  });
});

artifacts.get('/artifacts/:artifact_id/content', async (c) => {
  const id = c.req.param('artifact_id');
  if (!ArtifactId.test(id))
    return problem(
      c,
      fail('invalid-stream-id', `an artifact id is "sha256-" + 64 lowercase hex, got "${id}"`),
    );
  const denied = requireStream(c, `artifact:${id}`);
  if (denied) return denied;
  // Served as its artifact.stored records it (the stream accepted it only as
  // R2 holds it; objects stored before that check may say otherwise), and
  // bytes no accepted artifact names are no artifact.
  const recorded = await recordedArtifact(c.env, id);
  const object = recorded ? await c.env.ARTIFACTS.get(id) : null;
  if (!recorded || !object) return problem(c, fail('not-found', `no artifact "${id}"`));
  return new Response(object.body, {
    headers: {
      'Content-Type': recorded.contentType,
      'Content-Length': String(object.size),
      ETag: `"${id}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    },
  });
});
