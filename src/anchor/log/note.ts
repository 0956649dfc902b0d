import { parseBase64, toBase64 } from '../../protocol/base64';
import { type Hash, sha256 } from './merkle';

/**
 * C2SP signed notes (ed25519) and tlog checkpoints, byte for byte as Go's
 * golang.org/x/mod/sumdb/note and every tlog-checkpoint witness read them:
 *
 *   <text, ending in a newline>
 *   <blank line>
 *   — <key name> <base64(4-byte key id ‖ 64-byte signature)>
 *
 * key id = the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key);
 * verifier key = `<name>+<key id, 8 hex>+<base64(0x01 ‖ public key)>`;
 * signer key = `PRIVATE+KEY+<name>+<key id>+<base64(0x01 ‖ 32-byte seed)>`.
 */

const ED25519 = 1;
const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const UTF8 = new TextEncoder();

const hex8 = (id: number) => id.toString(16).padStart(8, '0');

/**
 * Longest key name, in UTF-8 bytes: with it (and the longest topic id) a
 * checkpoint's HCS-27 message still fits one 1024-byte HCS message
 * (`hcs27.ts`). For the same reason a name has no character JSON escapes.
 */
export const MAX_KEY_NAME_BYTES = 64;

function validName(name: string): boolean {
  const bytes = UTF8.encode(name).length;
  return bytes > 0 && bytes <= MAX_KEY_NAME_BYTES && !/[\s+"\\\p{Cc}]/u.test(name);
}

async function keyId(name: string, publicKey: Uint8Array): Promise<number> {
  const hash = await sha256(UTF8.encode(`${name}\n`), Uint8Array.of(ED25519), publicKey);
  return new DataView(hash.buffer).getUint32(0);
}

export interface NoteVerifier {
  name: string;
  id: number;
  publicKey: Uint8Array;
}

export interface NoteSigner extends NoteVerifier {
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** Reads a verifier key (`name+hex+base64`); null if malformed or if its id does not match. */
export async function parseVerifierKey(vkey: string): Promise<NoteVerifier | null> {
  const [name = '', id = '', ...key] = vkey.split('+'); // base64 may hold a '+'
  const bytes = parseBase64(key.join('+'));
  if (!validName(name) || !/^[0-9a-f]{8}$/.test(id)) return null;
  if (bytes?.length !== 33 || bytes[0] !== ED25519) return null;
  const publicKey = bytes.slice(1);
  const computed = await keyId(name, publicKey);
  return hex8(computed) === id ? { name, id: computed, publicKey } : null;
}

export const verifierKeyOf = (v: NoteVerifier): string =>
  `${v.name}+${hex8(v.id)}+${toBase64(Uint8Array.of(ED25519, ...v.publicKey))}`;

/** A signer from a `PRIVATE+KEY+…` string (a `wrangler secret`); null if malformed. */
export async function parseSignerKey(skey: string): Promise<NoteSigner | null> {
  const [p1, p2, name = '', id = '', ...key] = skey.split('+');
  const bytes = parseBase64(key.join('+'));
  if (p1 !== 'PRIVATE' || p2 !== 'KEY' || !validName(name)) return null;
  if (bytes?.length !== 33 || bytes[0] !== ED25519) return null;
  const pkcs8 = Uint8Array.of(...PKCS8_ED25519, ...bytes.slice(1));
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, [
    'sign',
  ]);
  const jwk = (await crypto.subtle.exportKey('jwk', privateKey)) as JsonWebKey;
  const publicKey = parseBase64(
    (jwk.x ?? '').replace(/-/g, '+').replace(/_/g, '/').padEnd(44, '='),
  );
  if (!publicKey) return null;
  const computed = await keyId(name, publicKey);
  if (hex8(computed) !== id) return null;
  return {
    name,
    id: computed,
    publicKey,
    sign: async (message) =>
      new Uint8Array(await crypto.subtle.sign('Ed25519', privateKey, message)),
  };
}

/** A new key pair for a log named `name`: the signer key (a secret) and its verifier key. */
export async function generateKeys(name: string): Promise<{ signer: string; verifier: string }> {
  if (!validName(name))
    throw new Error(
      `a key name has no spaces, "+", '"', "\\" or control characters, and at most ${MAX_KEY_NAME_BYTES} bytes: ${name}`,
    );
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(
    (await crypto.subtle.exportKey('pkcs8', pair.privateKey)) as ArrayBuffer,
  );
  const publicKey = new Uint8Array(
    (await crypto.subtle.exportKey('raw', pair.publicKey)) as ArrayBuffer,
  );
  const id = hex8(await keyId(name, publicKey));
  const seed = pkcs8.slice(PKCS8_ED25519.length);
  return {
    signer: `PRIVATE+KEY+${name}+${id}+${toBase64(Uint8Array.of(ED25519, ...seed))}`,
    verifier: `${name}+${id}+${toBase64(Uint8Array.of(ED25519, ...publicKey))}`,
  };
}

/** The note `text` (ending in a newline) signed by `signer`. */
export async function signNote(text: string, signer: NoteSigner): Promise<string> {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline');
  const signature = await signer.sign(UTF8.encode(text));
  const blob = new Uint8Array(4 + signature.length);
  new DataView(blob.buffer).setUint32(0, signer.id);
  blob.set(signature, 4);
  return `${text}\n— ${signer.name} ${toBase64(blob)}\n`;
}

/**
 * The text of `note` if one of `verifiers` signed it (picked by the
 * signature's key name and id: a log whose key was rotated has several),
 * else why not. Signatures by other keys are passed over, as the spec allows
 * (witness cosignatures).
 */
export async function openNote(
  note: string,
  verifiers: NoteVerifier | readonly NoteVerifier[],
): Promise<{ ok: true; text: string; verifier: NoteVerifier } | { ok: false; reason: string }> {
  const keys: readonly NoteVerifier[] = Array.isArray(verifiers) ? verifiers : [verifiers];
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) return { ok: false, reason: 'not a signed note' };
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  for (const line of lines) {
    const m = /^— (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) return { ok: false, reason: `malformed signature line: ${line}` };
    const blob = parseBase64(m[2] as string);
    if (blob?.length !== 68) continue;
    const id = new DataView(blob.buffer).getUint32(0);
    const verifier = keys.find((k) => k.name === m[1] && k.id === id);
    if (!verifier) continue;
    const key = await crypto.subtle.importKey(
      'raw',
      verifier.publicKey,
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
    const valid = await crypto.subtle.verify('Ed25519', key, blob.slice(4), UTF8.encode(text));
    return valid
      ? { ok: true, text, verifier }
      : { ok: false, reason: `the signature of ${verifier.name} does not verify` };
  }
  const names = keys.map((k) => `${k.name}+${hex8(k.id)}`).join(' or ');
  return { ok: false, reason: `no signature by ${names}` };
}

/** The key ids (8 hex) of the signatures on `note` by a key named `name`. */
export function signatureKeyIds(note: string, name: string): string[] {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) return [];
  return note
    .slice(split + 2)
    .split('\n')
    .map((line) => /^— (\S+) ([A-Za-z0-9+/=]+)$/.exec(line))
    .filter((m) => m?.[1] === name)
    .map((m) => parseBase64(m?.[2] as string))
    .filter((blob) => blob?.length === 68)
    .map((blob) => hex8(new DataView((blob as Uint8Array).buffer).getUint32(0)));
}

export interface Checkpoint {
  /** The log's unique name, e.g. `wirestream.example.com/topics/0.0.1234`. */
  origin: string;
  size: number;
  root: Hash;
  /** Extension lines, in order (e.g. the previous checkpoint's hash). */
  extensions: string[];
}

/** The C2SP tlog-checkpoint body: origin, tree size, base64 root, extension lines. */
export function checkpointText(c: Checkpoint): string {
  return [c.origin, String(c.size), toBase64(c.root), ...c.extensions]
    .map((l) => `${l}\n`)
    .join('');
}

export function parseCheckpoint(text: string): Checkpoint | null {
  if (!text.endsWith('\n')) return null;
  const [origin = '', size = '', root = '', ...extensions] = text.slice(0, -1).split('\n');
  const hash = parseBase64(root);
  if (origin.length === 0 || !/^(0|[1-9]\d{0,15})$/.test(size) || hash?.length !== 32) return null;
  if (extensions.some((l) => l.length === 0)) return null;
  return { origin, size: Number(size), root: hash, extensions };
}
