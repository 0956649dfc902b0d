import { MAX_ENTRY_BYTES } from '../anchor/log/tiles';
import { type Env, wireMaxBytes } from '../env';
import { privateProjects, projectOf } from '../private/config';
import { canonicalJson } from '../protocol/canonical-json';
import { ENVELOPE_KEY } from '../protocol/dialects/foreign';
import type { Wire } from '../protocol/envelope';
import { type Failure, fail } from '../protocol/failure';
import type { Signature } from '../protocol/signature';
import { sharedTopicProblem } from './topic-id';

/**
 * Why a topic cannot keep a log (log mode), or null when it can. Such a topic
 * anchors in envelope mode whatever its settings say (`LogAnchoring.mode`),
 * its `GET …/anchoring` shows this as `log_unavailable`, and `PUT
 * {"mode":"log"}` on it is a 422 naming `mode`. Two reasons:
 *  - its HCS topic is another topic name's too (`topic-id.ts`);
 *  - the deployment takes envelopes larger than a log entry can hold
 *    (`wireSizeProblem`), which would stop the log's R2 archive for good.
 */
export function logUnavailable(env: Env, name: string, storedId: string | null): string | null {
  const reasons = [sharedTopicProblem(env, name, storedId), wireSizeProblem(env)];
  const found = reasons.filter((r): r is string => r !== null);
  return found.length > 0 ? found.join('; ') : null;
}

/*
 * How large an accepted envelope becomes once anchored. A log's leaf is the
 * anchored envelope: canonical JSON of the whole Wire (`wireMessage`), or for
 * a private project's Wire its sealed form (`private/seal.ts`). The body an
 * append reads (at most `WIRE_MAX_BYTES`) brings the payload; the server may
 * add every other member: a Wire 1.0 body has no wire_id or stream_id, a 1.1
 * body may leave out stream_seq, correlation_id and causation_id, a foreign
 * dialect's members are renamed, prefixed (its type) or kept under
 * `$envelope`, and an offered signature (`Wirestream-Signatures`) brings `sig`.
 * So the bound counts all of them at their largest, as if the body had held
 * none: each grammar's longest value, correlation and causation ids as 256
 * UTF-16 units of 3 UTF-8 bytes each (the most one unit takes), the
 * committed signature form (the longer one). It does not cover payload
 * numbers that RFC 8785 writes longer than they were sent (`1e20` as 21
 * digits): canonical JSON never lengthens a string or a key.
 */
const LARGEST_STRING = (n: number, ch = 'x') => ch.repeat(n);

const LARGEST_MEMBERS = {
  wire: '1.1',
  wire_id: LARGEST_STRING(128), // WIRE_ID_PATTERN
  stream_id: LARGEST_STRING(256), // stream-id.ts
  stream_seq: Number.MAX_SAFE_INTEGER,
  correlation_id: LARGEST_STRING(256, '€'), // envelope.ts `Ref`
  causation_id: LARGEST_STRING(256, '€'),
  type: LARGEST_STRING(100), // wire-type.ts
  sender: LARGEST_STRING(128), // SENDER_PATTERN
  // The server's own timestamps are 24 characters; this one has room for an offset.
  ts: '2026-11-28T12:00:00.000+05:30',
};
const LARGEST_SIG = { kid: LARGEST_STRING(64), alg: 'Ed25519', value: LARGEST_STRING(86) };
const BYTES32 = LARGEST_STRING(43); // a salt or a commitment, base64url
/** What a foreign dialect wraps the members it keeps in. */
const WRAPPED_PAYLOAD = { [ENVELOPE_KEY]: {} };
/** A sealed envelope's `enc`: a 12-byte iv in base64, a data key id `dk-<16 hex>` (`key-store.ts`). */
const LARGEST_ENC = { alg: 'A256GCM', iv: LARGEST_STRING(16), kid: LARGEST_STRING(19) };
/** AES-GCM's tag, which the sealed payload carries after the ciphertext. */
const GCM_TAG_BYTES = 16;

const utf8Length = (value: unknown) => new TextEncoder().encode(canonicalJson(value)).byteLength;

/** The most bytes the server adds to an accepted envelope in the clear: 2,591. */
export const ADDED_BYTES = utf8Length({
  ...LARGEST_MEMBERS,
  sig: { ...LARGEST_SIG, salt: BYTES32 },
  payload: WRAPPED_PAYLOAD,
});

/** A sealed envelope without its payload's ciphertext (whose base64 is counted apart). */
const SEALED_FRAME_BYTES = utf8Length({
  ...LARGEST_MEMBERS,
  sig: { ...LARGEST_SIG, commitment: BYTES32 },
  enc: LARGEST_ENC,
  payload: '',
});
/** The plaintext sealed besides the payload's own bytes: `{"payload":…,"salt":…}` and the wrapper. */
const SEALED_EXTRA_BYTES = utf8Length({ payload: WRAPPED_PAYLOAD, salt: BYTES32 });

/** The largest anchored envelope (log leaf) an accepted envelope of `bodyBytes` can become. */
export function largestAnchoredBytes(bodyBytes: number, sealed: boolean): number {
  if (!sealed) return bodyBytes + ADDED_BYTES;
  const ciphertext = bodyBytes + SEALED_EXTRA_BYTES + GCM_TAG_BYTES;
  return SEALED_FRAME_BYTES + 4 * Math.ceil(ciphertext / 3);
}

/**
 * The largest `WIRE_MAX_BYTES` under which every anchored envelope fits a
 * tlog-tiles entry (62,944 in the clear; 47,060 with private projects).
 */
export function largestLogWireBytes(sealed: boolean): number {
  if (!sealed) return MAX_ENTRY_BYTES - ADDED_BYTES;
  const base64Chars = Math.floor((MAX_ENTRY_BYTES - SEALED_FRAME_BYTES) / 4) * 4;
  return (base64Chars / 4) * 3 - SEALED_EXTRA_BYTES - GCM_TAG_BYTES;
}

/**
 * Why this deployment's Wires may not fit a log entry, or null. A tlog-tiles
 * entry bundle writes each leaf after a 2-byte length (`anchor/log/tiles.ts`),
 * so the R2 archive cannot copy a larger one and stops there for good. With
 * private projects (`PRIVATE_PROJECTS`, or one that does not read: then no
 * Wire is anchored at all) a payload may be sealed, and its base64 is a third
 * longer; which topics carry private Wires depends on their streams, so the
 * sealed bound holds for every topic then.
 */
export function wireSizeProblem(
  env: Pick<Env, 'WIRE_MAX_BYTES' | 'PRIVATE_PROJECTS'>,
): string | null {
  const projects = privateProjects(env);
  const sealed = !projects.ok || projects.value.length > 0;
  const max = wireMaxBytes(env);
  if (largestAnchoredBytes(max, sealed) <= MAX_ENTRY_BYTES) return null;
  const how = sealed
    ? "the server's fields added and, with PRIVATE_PROJECTS, its payload sealed"
    : "the server's fields added";
  return `WIRE_MAX_BYTES is ${max}: a Wire that large can take ${largestAnchoredBytes(max, sealed)} bytes once anchored (${how}), and a log entry (tlog-tiles) holds at most ${MAX_ENTRY_BYTES}; a log needs WIRE_MAX_BYTES at most ${largestLogWireBytes(sealed)}`;
}

/*
 * The bound above is the generic append's (a body of at most
 * WIRE_MAX_BYTES). Other entry points read larger bodies (a GSD config or a
 * Heimdall message: 64 KiB), and RFC 8785 writes a number such as `1e20` as
 * its 21 digits, so a Wire can still outgrow a log entry. Each stream
 * therefore checks every Wire it is about to store (`entrySizeCheck`).
 */

/**
 * What sealing adds beyond 4 bytes per UTF-16 unit of a Wire's JSON (UTF-8
 * takes at most 3, base64 a third more): `enc`, the salt, the tag and
 * base64's rounding, rounded up. A Wire within the bound needs no exact count.
 */
const SEALED_SLACK_BYTES = 400;

/**
 * The exact length in bytes of a Wire once anchored: its canonical JSON, or
 * for a private project's Wire its sealed form (`private/seal.ts`), counted
 * without sealing it.
 */
export function anchoredBytes(wire: Wire, sealed: boolean): number {
  if (!sealed) return utf8Length(wire);
  const { payload, ...clear } = wire as Wire & Record<string, unknown>;
  const sig = clear.sig as Signature | undefined;
  let frame: Record<string, unknown> = clear;
  let plain: unknown = payload;
  if (sig?.salt !== undefined) {
    const { salt, ...signed } = sig;
    frame = { ...clear, sig: { ...signed, commitment: BYTES32 } };
    plain = { payload, salt };
  }
  const ciphertext = utf8Length(plain) + GCM_TAG_BYTES;
  const base64 = LARGEST_STRING(4 * Math.ceil(ciphertext / 3));
  return utf8Length({ ...frame, enc: LARGEST_ENC, payload: base64 });
}

/**
 * The check a stream runs on each Wire (with its `stream_seq`) before storing
 * it: null if it fits a log entry once anchored, else a 413
 * `envelope-too-large` saying how large it would be. It applies to every
 * topic's Wires while the deployment lets topics keep a log (a topic may be
 * switched to log mode while the Wire waits in the outbox); under a
 * WIRE_MAX_BYTES no log can take (`wireSizeProblem`), every Wire passes.
 * Nearly every Wire is decided by its JSON's length alone.
 */
export function entrySizeCheck(
  env: Pick<Env, 'WIRE_MAX_BYTES' | 'PRIVATE_PROJECTS'>,
): (wire: Wire) => Failure | null {
  if (wireSizeProblem(env) !== null) return () => null;
  const projects = privateProjects(env);
  // A PRIVATE_PROJECTS that does not read anchors nothing; bound as if sealed.
  const isSealed = (wire: Wire) => !projects.ok || projectOf(projects.value, wire) !== null;
  return (wire) => {
    const sealed = isSealed(wire);
    const units = JSON.stringify(wire).length;
    if ((sealed ? 4 * units + SEALED_SLACK_BYTES : 3 * units) <= MAX_ENTRY_BYTES) return null;
    const bytes = anchoredBytes(wire, sealed);
    if (bytes <= MAX_ENTRY_BYTES) return null;
    const how = sealed ? ' (its payload sealed: a private project)' : '';
    return fail(
      'envelope-too-large',
      `the Wire would take ${bytes} bytes once anchored${how}, and every Wire must fit a log entry (tlog-tiles), at most ${MAX_ENTRY_BYTES} bytes; numbers count as RFC 8785 writes them (1e20 as its 21 digits)`,
    );
  };
}
