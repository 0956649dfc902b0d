import { ArchiveReader } from '../anchor/log/archive';
import { prevProblem, readCheckpointMessage } from '../anchor/log/hcs27';
import { logKeys } from '../anchor/log/keyring';
import { edgeRoot, extendEdge, type Hash, leafHash, sha256 } from '../anchor/log/merkle';
import { type NoteVerifier, openNote, parseCheckpoint, signatureKeyIds } from '../anchor/log/note';
import type { Env } from '../env';
import { fromBase64, toBase64 } from '../protocol/base64';
import { decodeMessage } from './mirror-source';
import type { ProjectedWire } from './types';

/**
 * A rebuild of a log-mode topic (issue 31): on HCS the topic holds signed
 * checkpoints, not Wires, so each checkpoint's new leaves are read from the
 * R2 archive (`anchor/log/archive.ts`) and believed only as far as the
 * checkpoint vouches for them. The leaf hashes of the archive's level-0 tiles,
 * added to the tree's right edge kept from the checkpoints before, must give
 * the signed root; then each entry must hash to its leaf hash. An entry that
 * does not, or is missing, is refused and reported (which leaf, which
 * wire_id it names, why) and never projected. If the hash tiles themselves
 * were altered, the entries are tried against the root directly; if neither
 * gives the root, the range is refused, and so is every later leaf (the edge
 * the next checkpoint builds on is unknown).
 */

/** The verifier's state for a topic, plain JSON in the rebuild's cursor. */
export interface LogCursor {
  /** Leaves verified so far (the last checkpoint's tree size). */
  size: number;
  /** The tree's right edge at `size` (base64 hashes, `merkle.ts`'s `extendEdge`). */
  edge: string[];
  /** Base64 SHA-256 of the last checkpoint note, which the next one's `prev` line names. */
  prev: string | null;
  /** Why later leaves cannot be verified any more; null while they can. */
  broken: string | null;
}

/** An archived entry (or range of them) the rebuild did not project, and why. */
export interface ArchiveRefusal {
  /** The first leaf refused; null when the refusal is of a checkpoint itself. */
  leaf_index: number | null;
  /** The last leaf of a refused range; absent for one entry. */
  to_leaf?: number;
  /** The wire_id the archived entry names (it may be the altered part); null if unreadable. */
  wire_id: string | null;
  /** HCS sequence number of the checkpoint the entry was checked against. */
  checkpoint_seq: number;
  reason: string;
}

export interface ArchiveCheck {
  /** The current log key (`LOG_SIGNER_KEY`'s): its name is the log's. */
  verifier: NoteVerifier;
  /** Every key a checkpoint of this log may be signed by: the current one, then `LOG_VERIFIER_KEYS`. */
  verifiers: NoteVerifier[];
  bucket: R2Bucket | undefined;
}

export interface Expanded {
  wires: ProjectedWire[];
  refused: ArchiveRefusal[];
  cursor: LogCursor;
}

const UTF8 = new TextEncoder();
const START: LogCursor = { size: 0, edge: [], prev: null, broken: null };

/**
 * The deployment's log keys and archive, or null when it has no usable log
 * keys (the rebuilder refuses to start on a malformed `LOG_VERIFIER_KEYS`).
 */
export async function archiveCheck(
  env: Pick<Env, 'LOG_SIGNER_KEY' | 'LOG_VERIFIER_KEYS' | 'LOG_ARCHIVE'>,
): Promise<ArchiveCheck | null> {
  const keys = await logKeys(env);
  if (!keys.ok) return null;
  const { signer, verifiers } = keys.value;
  return { verifier: signer, verifiers, bucket: env.LOG_ARCHIVE };
}

/**
 * A whole HCS message that is not a Wire: when it is this log's checkpoint
 * for `topic`, the verified Wires of its new leaves; else null (skipped).
 */
export async function expandCheckpoint(
  check: ArchiveCheck,
  topic: string,
  bytes: Uint8Array,
  seq: number,
  consensusTimestamp: string,
  cursor: LogCursor = START,
): Promise<Expanded | null> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  const read = readCheckpointMessage(text);
  if (read === null) return null;
  const refuse = (reason: string, leaf: number | null = null): ArchiveRefusal => ({
    leaf_index: leaf,
    wire_id: null,
    checkpoint_seq: seq,
    reason,
  });
  if (!read.ok) {
    // Refused only when it names this log: HCS-27 messages of other logs are passed over.
    return read.logId === `${check.verifier.name}/${topic}`
      ? { wires: [], refused: [refuse(`checkpoint refused: ${read.reason}`)], cursor }
      : null;
  }
  const note = read.note;
  const opened = await openNote(note, check.verifiers);
  if (!opened.ok) {
    // Another log's note is none of this rebuild's business; a forged one of ours is, and so
    // is one of ours by a key that is neither LOG_SIGNER_KEY nor listed in LOG_VERIFIER_KEYS.
    const forged = opened.reason.startsWith('the signature of');
    const ours = read.checkpoint.origin === `${check.verifier.name}/${topic}`;
    const ids = ours && !forged ? signatureKeyIds(note, check.verifier.name) : [];
    if (!forged && ids.length === 0) return null;
    const reason = forged
      ? opened.reason
      : `signed by the key ${ids.map((id) => `${check.verifier.name}+${id}`).join(', ')}, which is neither LOG_SIGNER_KEY's nor in LOG_VERIFIER_KEYS`;
    return { wires: [], refused: [refuse(`checkpoint refused: ${reason}`)], cursor };
  }
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint?.origin !== `${check.verifier.name}/${topic}`) return null;
  const refused: ArchiveRefusal[] = [];
  if (cursor.prev !== null && !checkpoint.extensions.includes(`prev ${cursor.prev}`))
    refused.push(refuse('checkpoint does not commit to the previous checkpoint (prev line)'));
  const prevMeta =
    cursor.prev === null || cursor.broken !== null
      ? null
      : prevProblem(read, { size: cursor.size, root: await edgeRoot(cursor.edge.map(fromBase64)) });
  if (prevMeta)
    refused.push(refuse(`checkpoint does not commit to the previous checkpoint (${prevMeta})`));
  const prev = toBase64(await sha256(UTF8.encode(note)));
  const { size } = checkpoint;
  if (size < cursor.size) {
    const reason = `checkpoint of tree size ${size} does not extend tree size ${cursor.size}`;
    return { wires: [], refused: [...refused, refuse(reason)], cursor };
  }
  if (size === cursor.size) {
    // Nothing new to read, but the root must be the one already verified: two
    // signed checkpoints of one size with different roots are a forked log.
    const root = await edgeRoot(cursor.edge.map(fromBase64));
    if (cursor.broken === null && !same(root, checkpoint.root)) {
      const reason = `checkpoint of tree size ${size} has another root than the checkpoint of that size before it: the log forked`;
      return { wires: [], refused: [...refused, refuse(reason)], cursor };
    }
    return { wires: [], refused, cursor: { ...cursor, prev } };
  }
  const from = cursor.size;
  const range = (reason: string): ArchiveRefusal => ({
    ...refuse(reason, from),
    to_leaf: size - 1,
  });
  if (cursor.broken !== null) {
    refused.push(range(cursor.broken));
    return { wires: [], refused, cursor: { ...cursor, size, prev } };
  }
  const reader = check.bucket ? new ArchiveReader(check.bucket, topic) : null;
  const entries = reader ? await reader.entries(from, size) : Array(size - from).fill(null);
  const trusted = await trustedHashes(cursor, checkpoint.root, size, reader, entries);
  if (!trusted) {
    const broken = entries.every((e) => e === null)
      ? `missing: the archive has no entries for leaves ${from}–${size - 1} of the checkpoint at HCS sequence number ${seq} (behind, or deleted)`
      : `the archive's leaves ${from}–${size - 1} do not give the root of the checkpoint at HCS sequence number ${seq} (tree size ${size}): altered or missing tiles`;
    refused.push(range(broken));
    return { wires: [], refused, cursor: { ...cursor, size, prev, broken } };
  }
  const wires: ProjectedWire[] = [];
  for (const [i, entry] of entries.entries()) {
    const leaf = from + i;
    const why = entry
      ? same(await leafHash(entry), trusted.hashes[i])
        ? null
        : `altered: its leaf hash differs from the one the checkpoint at HCS sequence number ${seq} (tree size ${size}) commits to`
      : 'missing: the archive has no entry for this leaf';
    const wire =
      why === null && entry ? decodeMessage(entry, topic, seq, consensusTimestamp) : null;
    if (wire) wires.push(wire);
    else refused.push({ ...refuse(why ?? 'not a Wire', leaf), wire_id: namedWireId(entry) });
  }
  return { wires, refused, cursor: { size, edge: trusted.edge.map(toBase64), prev, broken: null } };
}

/**
 * The leaf hashes of [cursor.size, size) that the checkpoint's root vouches
 * for: the archive's level-0 tiles', else the entries' own; null if neither.
 */
async function trustedHashes(
  cursor: LogCursor,
  root: Hash,
  size: number,
  reader: ArchiveReader | null,
  entries: (Uint8Array | null)[],
): Promise<{ hashes: Hash[]; edge: Hash[] } | null> {
  const edge = cursor.edge.map((h) => fromBase64(h));
  const tiles = reader ? await reader.leafHashes(cursor.size, size) : [];
  const own = entries.every((e) => e !== null)
    ? await Promise.all(entries.map((e) => leafHash(e as Uint8Array)))
    : null;
  for (const hashes of [tiles, own]) {
    if (!hashes || hashes.length !== size - cursor.size || hashes.some((h) => h === null)) continue;
    const complete = hashes as Hash[];
    const extended = await extendEdge(edge, cursor.size, complete);
    if (same(await edgeRoot(extended), root)) return { hashes: complete, edge: extended };
  }
  return null;
}

function same(a: Hash, b: Hash | undefined): boolean {
  return b !== undefined && a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);
}

function namedWireId(entry: Uint8Array | null): string | null {
  if (!entry) return null;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(entry)) as { wire_id?: unknown };
    return typeof parsed.wire_id === 'string' ? parsed.wire_id : null;
  } catch {
    return null;
  }
}
