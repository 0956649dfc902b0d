import type { Env } from '../../../env';
import { streamStub } from '../../../stream/stub';
import { messageTypeOf } from '../envelope';
import { read } from '../kinds/read';
import type { AroundCommit } from './append-envelope';

/**
 * An artifact's bytes in R2 (`sha256-<hex>`), kept in step with its
 * `artifact.stored` Wire: the Wire is the record, the object only its
 * content. The key is the content's hash, so one object serves every upload
 * of the same bytes: it is written once, never overwritten (an upload with
 * another Content-Type must not change what an accepted artifact serves),
 * and removed only when the upload that wrote it was refused and no accepted
 * artifact names it.
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

/** Writes the object unless it is there already; whether this call wrote it. */
async function putIfAbsent(bucket: R2Bucket, a: ArtifactBytes): Promise<boolean> {
  if (await bucket.head(a.artifactId)) return false;
  await bucket.put(a.artifactId, a.bytes, {
    httpMetadata: { contentType: a.contentType },
    sha256: a.sha256,
  });
  return true;
}

/**
 * The commit of an upload's `artifact.stored`, run once its guards (rights,
 * signature, rate) have passed: the bytes go to R2 first, so an accepted
 * Wire never names missing content, and leave again if the stream refuses
 * the Wire, unless an accepted artifact (someone else's upload of the same
 * bytes) names them.
 */
export function storingBytes(
  env: Pick<Env, 'ARTIFACTS' | 'STREAMS'>,
  a: ArtifactBytes,
): AroundCommit {
  return async (commit) => {
    const wrote = await putIfAbsent(env.ARTIFACTS, a);
    // A commit that throws leaves the bytes: whether it stored the Wire is unknown.
    const result = await commit();
    if (result.ok) {
      // A refused upload of the same bytes may have removed them between our
      // head and our commit (it saw no accepted artifact yet): put them back.
      await putIfAbsent(env.ARTIFACTS, a);
    } else if (wrote && (await recordedArtifact(env, a.artifactId)) === null) {
      await env.ARTIFACTS.delete(a.artifactId);
    }
    return result;
  };
}
