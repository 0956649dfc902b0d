import { loneSurrogatePath } from '../canonical-json';
import { type Draft, invalidWire, type PayloadCatalogue, payloadIssues } from '../envelope';
import { fail, type Result } from '../failure';
import { newWireId, reservedWireIdProblem } from '../ids';
import { bodySecretsProblem } from '../secrets';
import { streamIdProblem } from '../stream-id';
import type { Dialect } from './dialect';
import { nativeDialectOf } from './native';

const LONE_SURROGATE_MESSAGE =
  'holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which canonical JSON (RFC 8785) cannot represent';

export interface ParsedAppend {
  draft: Draft;
  /** `stream_seq` the client expected its Wire to get, if it said. */
  expectedSeq: number | undefined;
  /** True for a Wire 1.0 envelope upgraded to 1.1. */
  upgraded: boolean;
  /** The dialect that decoded the body. */
  dialect: string;
}

export interface AppendOptions {
  /** The body's dialect; by default Wire 1.1, or Wire 1.0 when its `wire` says so. */
  dialect?: Dialect;
  /** The authenticated sender, for dialects whose envelopes name none. */
  sender?: string;
  /** Payload schemas by type (the protocol modules' catalogues); none by default. */
  payloads?: PayloadCatalogue;
  /** Wire id prefixes the modules derive for their own Wires; none by default. */
  reserved?: readonly string[];
  /** Mints server wire_ids; `ids.newWireId` by default. */
  newWireId?: () => string;
}

/**
 * Validates a decoded JSON body posted to `streamId` and turns it into a
 * draft Wire 1.1: choose the dialect, decode, then the checks every Wire
 * passes whatever its dialect — its payload against the catalogue, and no
 * wire_id the coordinator reserves. Failures name the dialect's own fields.
 */
export function parseAppend(
  body: unknown,
  streamId: string,
  options: AppendOptions = {},
): Result<ParsedAppend> {
  const pathProblem = streamIdProblem(streamId);
  if (pathProblem !== null) return fail('invalid-stream-id', pathProblem);

  // HCS is public and permanent: any secret-shaped string, whatever field holds it.
  const secret = bodySecretsProblem(body);
  if (secret !== null) return secret;

  const dialect = options.dialect ?? nativeDialectOf(body);
  const decoded = dialect.decode(body, {
    streamId,
    sender: options.sender,
    newWireId: options.newWireId ?? newWireId,
  });
  if (!decoded.ok) return decoded;
  const { draft } = decoded;

  const payload = payloadIssues(draft.type, draft.payload, options.payloads);
  if (payload !== null) {
    return invalidWire(payload.map((i) => ({ ...i, path: dialect.pathOf(i.path) })));
  }
  const reserved = reservedWireIdProblem(draft.wire_id, options.reserved ?? []);
  if (reserved !== null) {
    return invalidWire([{ path: dialect.pathOf('wire_id'), message: reserved }]);
  }
  // RFC 8785 cannot represent a lone surrogate: refused before anything is stored.
  const unpaired = loneSurrogatePath(body);
  if (unpaired !== null) return invalidWire([{ path: unpaired, message: LONE_SURROGATE_MESSAGE }]);

  return {
    ok: true,
    draft,
    expectedSeq: decoded.expectedSeq,
    upgraded: dialect.name === 'wire-1.0',
    dialect: dialect.name,
  };
}
