import type { Env } from '../../../env';
import { fail } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { messageTypeOf } from '../envelope';
import { read } from '../kinds/read';
import type { AroundCommit } from './append-envelope';

/**
 * An artifact's bytes in R2 (`sha256-<hex>`), kept in step with its
 * `artifact.stored` Wire: the Wire is the record, the object its content,
 * written with the Content-Type the Wire records. The key is the content's
 * hash, so one object serves every upload of the same bytes: it is created
 * once (a conditional put: of concurrent uploads exactly one writes it) and
 * never overwritten, and the stream accepts an `artifact.stored` only if it
 * matches the object (`kinds/artifact.ts`). It is removed only when the
 * upload that wrote it was refused and no accepted artifact names it.
 */

/** What the accepted `artifact.stored` records of its artifact. */
export interface RecordedArtifact {
  contentType: string;
  size: number;
}

/** The accepted `artifact.stored` of `artifactId` (on `artifact:<id>`), or null while there is none. */
export async function recordedArtifact(
  env: Pick<Env, 'STREAMS'>,
  artifactId: string,
): Promise<RecordedArtifact | null> {
  // A one-event stream: its first page holds the artifact.stored.
  const page = await streamStub(env, `artifact:${artifactId}`).read(0, 100);
  for (const wire of page.wires) {
    if (messageTypeOf(wire.type) !== 'artifact.stored') continue;
    const p = read('artifact.stored', wire.payload);
    if (p?.artifactId === artifactId) return { contentType: p.contentType, size: p.size };
  }
  return null;
}

export interface ArtifactBytes {
  artifactId: string;
  sha256: string;
  bytes: ArrayBuffer;
  contentType: string;
}

/**
 * Creates the object unless one is there: whether this call created it. R2
 * answers null to a put whose `onlyIf` fails, and `etagDoesNotMatch: '*'`
 * holds only while the key is absent, as `If-None-Match: *` does
 * (https://developers.cloudflare.com/r2/api/workers/workers-api-reference/,
 * https://developers.cloudflare.com/r2/api/s3/conditional-operations/).
 */
async function create(bucket: R2Bucket, a: ArtifactBytes): Promise<boolean> {
  const created = await bucket.put(a.artifactId, a.bytes, {
    httpMetadata: { contentType: a.contentType },
    sha256: a.sha256,
    onlyIf: { etagDoesNotMatch: '*' },
  });
  return created !== null;
}

/**
 * The commit of an upload's `artifact.stored`, run once its guards (rights,
 * signature, rate) have passed. The bytes go to R2 first, so an accepted
 * Wire never names missing content; the upload that creates the object is
 * the one whose Content-Type it keeps. Another upload of the same bytes with
 * another Content-Type is refused here (409 `artifact-exists`) without
 * touching the stream; with the same one it commits too, and the stream
 * keeps whichever Wire comes first. The bytes leave again if the stream
 * refuses the Wire of the upload that wrote them, unless an accepted
 * artifact names them.
 */
export function storingBytes(
  env: Pick<Env, 'ARTIFACTS' | 'STREAMS'>,
  a: ArtifactBytes,
): AroundCommit {
  return async (commit) => {
    const wrote = await create(env.ARTIFACTS, a);
    if (!wrote) {
      const stored = (await env.ARTIFACTS.head(a.artifactId))?.httpMetadata?.contentType;
      if (stored !== undefined && stored !== a.contentType)
        return fail(
          'artifact-exists',
          `artifact "${a.artifactId}" is already stored as "${stored}", not as "${a.contentType}"; the same bytes are one artifact`,
          { extra: { contentType: stored } },
        );
    }
    // A commit that throws leaves the bytes: whether it stored the Wire is unknown.
    const result = await commit();
    if (result.ok) {
      // A refused upload that wrote the bytes may have removed them between
      // our commit's check of R2 and now (it saw no accepted artifact yet).
      if (!wrote && !(await env.ARTIFACTS.head(a.artifactId))) await create(env.ARTIFACTS, a);
    } else if (wrote && (await recordedArtifact(env, a.artifactId)) === null) {
      await env.ARTIFACTS.delete(a.artifactId);
    }
    return result;
  };
}
