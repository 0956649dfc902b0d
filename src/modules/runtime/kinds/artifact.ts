import type { Env } from '../../../env';
import { accept, defineKind, type Hold } from '../../../kernel/kind';
import { type Draft, type Failure, type FieldIssue, fail, type Wire } from '../../../protocol';
import { messageTypeOf } from '../envelope';
import { read } from './read';

/**
 * `artifact:sha256-<hex>`: the record of one artifact, whose bytes R2 holds
 * under `sha256-<hex>`. The stream records one `artifact.stored`, and only
 * one that says what R2 holds: the object is there, with the size and the
 * Content-Type the Wire names. A decider does no IO, so `reserve` reads the
 * object before the decision and hands what it found to `decide`. However
 * the Wire arrives (the upload, the generic append route, MCP, HCS-first
 * ingest), what the stream records is what `GET /v1/artifacts/{id}/content`
 * serves. Wires of other types pass as before (other protocols name
 * `artifact:` streams too).
 */
export interface ArtifactState {
  recorded: { wireId: string; contentType: string; size: number } | null;
}

/** The bucket `reserve` reads (the kind's config is where a kind reaches its deployment). */
interface ArtifactConfig {
  bucket: R2Bucket;
}

/** What `reserve` found in R2 for the Wire's artifact. */
interface StoredBytes extends Hold {
  artifactId: string;
  contentType: string;
  size: number;
}

const PREFIX = 'artifact:';

/** `runtime.artifact.stored`, and a bare `artifact.stored`: both read as the artifact's record. */
const isStored = (type: string) => messageTypeOf(type) === 'artifact.stored';

function isStoredBytes(hold: Hold | null): hold is StoredBytes {
  return (
    hold !== null &&
    typeof hold.artifactId === 'string' &&
    typeof hold.contentType === 'string' &&
    typeof hold.size === 'number'
  );
}

/** The stored bytes the Wire needs to be accepted, or why it cannot be. */
function wanted(command: Draft): StoredBytes | Failure {
  const artifactId = command.stream_id.slice(PREFIX.length);
  const p = read('artifact.stored', command.payload);
  if (!p)
    return fail(
      'invalid-wire',
      'an artifact.stored payload names artifactId, sha256, size and contentType',
      { errors: [{ path: 'payload', message: 'is not an artifact.stored payload' }] },
    );
  const errors: FieldIssue[] = [];
  if (p.artifactId !== artifactId)
    errors.push({
      path: 'payload.artifactId',
      message: `must be "${artifactId}", the stream's artifact`,
    });
  if (`sha256-${p.sha256}` !== artifactId)
    errors.push({ path: 'payload.sha256', message: `must be the hex of "${artifactId}"` });
  if (errors.length > 0)
    return fail(
      'invalid-wire',
      `an artifact.stored on "${command.stream_id}" records that artifact`,
      {
        errors,
      },
    );
  return { ok: true, artifactId, contentType: p.contentType, size: p.size };
}

export const artifactKind = defineKind<ArtifactState, ArtifactConfig>({
  name: 'artifact',
  version: 1,
  config: (env: Env) => ({ bucket: env.ARTIFACTS }),
  decider: {
    initialState: () => ({ recorded: null }),
    decide(command, state, ctx) {
      if (!isStored(command.type)) return accept(command);
      const need = wanted(command);
      if (!need.ok) return need;
      const recorded = state.recorded;
      if (recorded)
        return fail(
          'artifact-exists',
          `artifact "${need.artifactId}" is already recorded (${recorded.size} bytes of ${recorded.contentType}, Wire "${recorded.wireId}"); an artifact is recorded once`,
          { extra: { contentType: recorded.contentType, size: recorded.size } },
        );
      const found = ctx.hold;
      if (
        !isStoredBytes(found) ||
        found.artifactId !== need.artifactId ||
        found.contentType !== need.contentType ||
        found.size !== need.size
      )
        return fail(
          'artifact-not-stored',
          `the bytes of artifact "${need.artifactId}" are not stored as this Wire says`,
        );
      return accept(command);
    },
    evolve(state, wire: Wire) {
      if (state.recorded || !isStored(wire.type)) return state;
      const p = read('artifact.stored', wire.payload);
      if (p?.artifactId !== wire.stream_id.slice(PREFIX.length)) return state;
      return { recorded: { wireId: wire.wire_id, contentType: p.contentType, size: p.size } };
    },
  },
  hooks: {
    view: (state) => state,
    async reserve(command, _state, ctx) {
      if (!isStored(command.type) || ctx.isReplay()) return null;
      const need = wanted(command);
      if (!need.ok) return need;
      // Refusals that need no read of R2 (an artifact already recorded) come first.
      const early = ctx.check(need);
      if (early) return early;
      const object = await ctx.cfg.bucket.head(need.artifactId);
      if (!object)
        return fail(
          'artifact-not-stored',
          `no bytes are stored for artifact "${need.artifactId}": POST /v1/artifacts uploads them and records this Wire itself`,
        );
      const contentType = object.httpMetadata?.contentType ?? '';
      if (object.size !== need.size || contentType !== need.contentType)
        return fail(
          'artifact-not-stored',
          `artifact "${need.artifactId}" is stored as ${object.size} bytes of "${contentType}"; this Wire says ${need.size} bytes of "${need.contentType}"`,
          { extra: { contentType, size: object.size } },
        );
      return need;
    },
  },
});
