import { parseBase64 } from '../../protocol/base64';
import { leafHash, verifyInclusion } from './merkle';
import {
  type Checkpoint,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  verifierKeyOf,
} from './note';

/**
 * Log mode's proofs as an outsider checks them (issue 31), the part that
 * needs no network: the answer of `GET /v1/wires/{id}/proof` (mode "log") is
 * read as untrusted JSON, its leaf must be the Wire it names, its checkpoint
 * signed by the log's key for its topic, and its inclusion path must lead
 * from the leaf's hash to that checkpoint's root. The SDK adds the mirror's
 * side (`src/client/log-proof.ts`), `npm run verify` uses it for the Wires
 * a log-mode topic lists.
 */
export interface LogProof {
  mode: 'log';
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  /** The Wire's canonical JSON: the log's leaf. */
  leaf: string;
  leaf_index: number;
  tree_size: number;
  inclusion_path: string[];
  /** The signed checkpoint note, as the HCS-27 message on HCS carries it (`hcs27.ts`). */
  checkpoint: string;
  log_origin: string;
  /** The log's current key. */
  verifier_key: string;
  /** Every key its checkpoints may be signed by, current first (absent before key rotation existed). */
  verifier_keys?: string[];
  checkpoint_anchor: {
    hcs_topic_id: string;
    hcs_sequence_number: number;
    consensus_timestamp: string;
    running_hash: string;
    mirror_url?: string;
  };
}

export type LogCheckName =
  | 'proof'
  | 'key'
  | 'leaf'
  | 'signature'
  | 'checkpoint'
  | 'inclusion'
  | 'on-hcs'
  | 'running-hash';

export interface LogCheckStep {
  check: LogCheckName;
  ok: boolean;
  detail: string;
}

export interface LogProofCheck {
  ok: boolean;
  wire_id: string;
  hcs_topic_id: string;
  hcs_sequence_number: number;
  leaf_index: number;
  tree_size: number;
  /** `pinned`: the caller's key; `proof`: the key the proof names (trust on first use). */
  key_source: 'pinned' | 'proof';
  checks: LogCheckStep[];
  /** The first step that failed. */
  problem?: { check: LogCheckName; reason: string };
}

const UTF8 = new TextEncoder();
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The log proof in `value`, or the first field that is not what a log proof holds. */
export function readLogProof(
  value: unknown,
): { ok: true; proof: LogProof } | { ok: false; reason: string } {
  if (!isObject(value)) return { ok: false, reason: 'the proof is not a JSON object' };
  if (value.mode !== 'log') return { ok: false, reason: 'mode is not "log"' };
  const anchor = value.checkpoint_anchor;
  const fields: [string, unknown, (v: unknown) => boolean][] = [
    ['wire_id', value.wire_id, (v) => typeof v === 'string'],
    ['stream_id', value.stream_id, (v) => typeof v === 'string'],
    ['stream_seq', value.stream_seq, isCount],
    ['leaf', value.leaf, (v) => typeof v === 'string'],
    ['leaf_index', value.leaf_index, isCount],
    ['tree_size', value.tree_size, isCount],
    [
      'inclusion_path',
      value.inclusion_path,
      (v) => Array.isArray(v) && v.every((h) => typeof h === 'string'),
    ],
    ['checkpoint', value.checkpoint, (v) => typeof v === 'string'],
    ['verifier_key', value.verifier_key, (v) => typeof v === 'string'],
    [
      'verifier_keys',
      value.verifier_keys,
      (v) => v === undefined || (Array.isArray(v) && v.every((k) => typeof k === 'string')),
    ],
    ['checkpoint_anchor', anchor, isObject],
  ];
  if (isObject(anchor)) {
    fields.push(
      [
        'checkpoint_anchor.hcs_topic_id',
        anchor.hcs_topic_id,
        (v) => typeof v === 'string' && /^\d+\.\d+\.\d+$/.test(v),
      ],
      [
        'checkpoint_anchor.hcs_sequence_number',
        anchor.hcs_sequence_number,
        (v) => isCount(v) && v > 0,
      ],
      [
        'checkpoint_anchor.consensus_timestamp',
        anchor.consensus_timestamp,
        (v) => typeof v === 'string',
      ],
      ['checkpoint_anchor.running_hash', anchor.running_hash, (v) => typeof v === 'string'],
    );
  }
  const bad = fields.find(([, v, ok]) => !ok(v));
  if (bad) return { ok: false, reason: `${bad[0]} is missing or malformed` };
  return { ok: true, proof: value as unknown as LogProof };
}

/** Verifier keys pinned by the caller: `verifierKeys`, and the single `verifierKey` of old. */
export interface PinnedKeys {
  verifierKey?: string;
  verifierKeys?: readonly string[];
}

export const pinnedKeys = (o: PinnedKeys): string[] => [
  ...(o.verifierKeys ?? []),
  ...(o.verifierKey !== undefined ? [o.verifierKey] : []),
];

/**
 * The verifier keys to check signatures with: the pinned ones, else the ones
 * the proof or API names (trust on first use). After a key rotation a log has
 * several; the note signature's key id picks one (`openNote`). With both, the
 * key named current (`named[0]`) must be pinned: a proof of another log is
 * refused as such, not as a bad signature.
 */
export async function logVerifiers(
  pinned: readonly string[],
  named: readonly string[],
): Promise<{ ok: true; verifiers: NoteVerifier[] } | { ok: false; reason: string }> {
  const keys = pinned.length > 0 ? pinned : named;
  if (keys.length === 0) return { ok: false, reason: 'no verifier key' };
  const current = named[0];
  if (pinned.length > 0 && current !== undefined && !pinned.includes(current)) {
    return {
      ok: false,
      reason: `the log is signed with ${current}, not the pinned ${pinned.join(', ')}`,
    };
  }
  const verifiers: NoteVerifier[] = [];
  for (const key of keys) {
    const verifier = await parseVerifierKey(key);
    if (!verifier) return { ok: false, reason: `"${key}" is not a verifier key (name+id+base64)` };
    verifiers.push(verifier);
  }
  return { ok: true, verifiers };
}

/** The keys a proof names: its current `verifier_key`, then the rest of `verifier_keys`. */
export const namedKeys = (proof: Pick<LogProof, 'verifier_key' | 'verifier_keys'>): string[] => [
  ...new Set([proof.verifier_key, ...(proof.verifier_keys ?? [])]),
];

/**
 * The checkpoint a note carries if one of `verifiers` signed it for the log
 * of HCS topic `topicId` (origin `<key name>/<topicId>`), else why not.
 */
export async function openCheckpoint(
  note: string,
  verifiers: NoteVerifier | readonly NoteVerifier[],
  topicId: string,
): Promise<
  | { ok: true; checkpoint: Checkpoint; verifier: NoteVerifier }
  | { ok: false; check: LogCheckName; reason: string }
> {
  const opened = await openNote(note, verifiers);
  if (!opened.ok) return { ok: false, check: 'signature', reason: opened.reason };
  const checkpoint = parseCheckpoint(opened.text);
  if (!checkpoint)
    return { ok: false, check: 'checkpoint', reason: 'the signed text is not a checkpoint' };
  const origin = originOf(opened.verifier, topicId);
  if (checkpoint.origin !== origin) {
    return {
      ok: false,
      check: 'checkpoint',
      reason: `the checkpoint's origin is ${checkpoint.origin}, not ${origin}`,
    };
  }
  return { ok: true, checkpoint, verifier: opened.verifier };
}

/** The origin line of the log of HCS topic `topicId` signed by `verifier`. */
export const originOf = (verifier: NoteVerifier, topicId: string) => `${verifier.name}/${topicId}`;

/**
 * The checks of a log proof that need no mirror: the key, the leaf, the
 * checkpoint's signature and origin, and the leaf's inclusion under its root.
 */
export async function checkLogProof(
  proof: LogProof,
  pinned: string | readonly string[] = [],
): Promise<LogCheckStep[]> {
  const checks: LogCheckStep[] = [];
  const step = (check: LogCheckName, ok: boolean, detail: string) =>
    checks.push({ check, ok, detail });
  const topicId = proof.checkpoint_anchor.hcs_topic_id;
  const key = await logVerifiers([pinned].flat(), namedKeys(proof));
  const names = key.ok ? key.verifiers.map(verifierKeyOf) : [];
  step('key', key.ok, key.ok ? `checkpoints signed by one of ${names.join(', ')}` : key.reason);
  if (!key.ok) return checks;
  const leaf = leafProblem(proof);
  step(
    'leaf',
    leaf === null,
    leaf ?? `the leaf is Wire ${proof.wire_id} (${proof.stream_id}#${proof.stream_seq})`,
  );

  const opened = await openCheckpoint(proof.checkpoint, key.verifiers, topicId);
  const signed = opened.ok || opened.check !== 'signature';
  step(
    'signature',
    signed,
    opened.ok
      ? `signed by ${verifierKeyOf(opened.verifier)}`
      : signed
        ? 'signed by a key of the log'
        : opened.reason,
  );
  if (!opened.ok && signed) step(opened.check, false, opened.reason);
  if (opened.ok) {
    const cp = opened.checkpoint;
    const sized = cp.size === proof.tree_size;
    step(
      'checkpoint',
      sized,
      sized
        ? `origin ${cp.origin}, ${cp.size} leaves`
        : `the checkpoint's tree has ${cp.size} leaves, the proof says ${proof.tree_size}`,
    );
    const included = await includes(proof, cp);
    step(
      'inclusion',
      included,
      `leaf ${proof.leaf_index} is${included ? '' : ' NOT'} under the root of the ${cp.size}-leaf tree`,
    );
  }
  return checks;
}

/** Why the leaf is not the Wire the proof names, or null. */
function leafProblem(proof: LogProof): string | null {
  let leaf: unknown;
  try {
    leaf = JSON.parse(proof.leaf);
  } catch {
    return 'the leaf is not JSON';
  }
  if (!isObject(leaf)) return 'the leaf is not a Wire';
  for (const field of ['wire_id', 'stream_id', 'stream_seq'] as const) {
    if (leaf[field] !== proof[field]) {
      return `the leaf's ${field} is ${JSON.stringify(leaf[field])}, the proof's ${JSON.stringify(proof[field])}`;
    }
  }
  return null;
}

async function includes(proof: LogProof, cp: Checkpoint): Promise<boolean> {
  const path = proof.inclusion_path.map(parseBase64);
  if (path.some((h) => h?.length !== 32)) return false;
  const hash = await leafHash(UTF8.encode(proof.leaf));
  return verifyInclusion(proof.leaf_index, cp.size, hash, path as Uint8Array[], cp.root);
}
