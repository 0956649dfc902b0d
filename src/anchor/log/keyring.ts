import {
  MAX_KEY_NAME_BYTES,
  type NoteSigner,
  type NoteVerifier,
  parseSignerKey,
  parseVerifierKey,
} from './note';

/**
 * A deployment's log keys (issue 31): `LOG_SIGNER_KEY` signs every new
 * checkpoint; `LOG_VERIFIER_KEYS` lists the verifier keys of the keys it
 * replaced, so the checkpoints they signed still open (rebuilds, proofs, the
 * chain check). A rotated key keeps the name, since the log's origin is
 * `<name>/<topic>`: a key with another name is another log, so an earlier key
 * under another name is a misconfiguration, not a rotation.
 */
export interface LogKeys {
  signer: NoteSigner;
  /** The current key first, then the earlier ones in `LOG_VERIFIER_KEYS` order. */
  verifiers: NoteVerifier[];
}

export type Keyed<T> =
  | { ok: true; value: T }
  | { ok: false; field: 'LOG_SIGNER_KEY' | 'LOG_VERIFIER_KEYS'; detail: string };

export const SIGNER_KEY_PROBLEM = `LOG_SIGNER_KEY is not a signer key PRIVATE+KEY+<name>+<id>+<key> (<name>: at most ${MAX_KEY_NAME_BYTES} bytes, no spaces, "+", '"', "\\" or control characters)`;

/** `LOG_VERIFIER_KEYS` (comma- or whitespace-separated) as verifiers, checked against the current key. */
export async function earlierKeys(
  raw: string | undefined,
  current: NoteVerifier,
): Promise<Keyed<NoteVerifier[]>> {
  const entries = (raw ?? '').split(/[\s,]+/).filter((e) => e !== '');
  const keys: NoteVerifier[] = [];
  for (const [i, entry] of entries.entries()) {
    const key = await parseVerifierKey(entry);
    const shown = entry.length > 80 ? `${entry.slice(0, 77)}...` : entry;
    if (!key)
      return {
        ok: false,
        field: 'LOG_VERIFIER_KEYS',
        detail: `LOG_VERIFIER_KEYS entry ${i + 1} ("${shown}") is not a verifier key <name>+<key id>+<base64 key>`,
      };
    if (key.name !== current.name)
      return {
        ok: false,
        field: 'LOG_VERIFIER_KEYS',
        detail: `LOG_VERIFIER_KEYS entry ${i + 1} is a key of the log "${key.name}", not "${current.name}" (LOG_SIGNER_KEY's): a rotated key keeps its name`,
      };
    if (key.id !== current.id && !keys.some((k) => k.id === key.id)) keys.push(key);
  }
  return { ok: true, value: keys };
}

/** The deployment's log keys, or what is wrong with `LOG_SIGNER_KEY` / `LOG_VERIFIER_KEYS`. */
export async function logKeys(env: {
  LOG_SIGNER_KEY?: string | undefined;
  LOG_VERIFIER_KEYS?: string | undefined;
}): Promise<Keyed<LogKeys>> {
  const signer = await parseSignerKey(env.LOG_SIGNER_KEY ?? '');
  if (!signer) return { ok: false, field: 'LOG_SIGNER_KEY', detail: SIGNER_KEY_PROBLEM };
  const earlier = await earlierKeys(env.LOG_VERIFIER_KEYS, signer);
  if (!earlier.ok) return earlier;
  return { ok: true, value: { signer, verifiers: [signer, ...earlier.value] } };
}
