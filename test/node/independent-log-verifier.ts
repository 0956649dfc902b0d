// An outsider's verifier of log mode (issue 31), written for the acceptance
// test from the specifications alone — RFC 9162 §2.1 (Merkle tree hashes,
// inclusion and consistency verification), C2SP signed-note and
// tlog-checkpoint, Hedera's topic running hash v3, HCS-27's checkpoint
// message (`independent-hcs27.ts`) — with node:crypto and
// fetch. It deliberately imports nothing from src/: if the project's Merkle,
// note or running-hash code were wrong, this would disagree with it.
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { type Hcs27Checkpoint, readHcs27 } from './independent-hcs27';

const sha = (algorithm: string, ...parts: (Buffer | string)[]) => {
  const h = createHash(algorithm);
  for (const p of parts) h.update(p);
  return h.digest();
};
const sha256 = (...parts: (Buffer | string)[]) => sha('sha256', ...parts);

// ---- RFC 9162 §2.1 ---------------------------------------------------------

export const leafHash = (leaf: string) => sha256(Buffer.of(0), Buffer.from(leaf, 'utf8'));
const nodeHash = (left: Buffer, right: Buffer) => sha256(Buffer.of(1), left, right);

/**
 * The walk up the tree that RFC 9162 §2.1.3.2 and §2.1.4.2 share: each path
 * element is a left sibling (`left`) or a right one (`right`); false if the
 * path is too long or too short for the tree.
 */
function walk(
  fn0: number,
  sn0: number,
  path: Buffer[],
  left: (c: Buffer) => void,
  right: (c: Buffer) => void,
): boolean {
  let [fn, sn] = [fn0, sn0];
  for (const c of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      left(c);
      while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else {
      right(c);
    }
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  return sn === 0;
}

/** RFC 9162 §2.1.3.2. */
export function inclusionHolds(
  index: number,
  size: number,
  leaf: Buffer,
  path: Buffer[],
  root: Buffer,
): boolean {
  if (index >= size) return false;
  let r = leaf;
  const fits = walk(
    index,
    size - 1,
    path,
    (c) => {
      r = nodeHash(c, r);
    },
    (c) => {
      r = nodeHash(r, c);
    },
  );
  return fits && r.equals(root);
}

/** RFC 9162 §2.1.4.2. */
export function consistencyHolds(
  first: number,
  second: number,
  firstRoot: Buffer,
  secondRoot: Buffer,
  proof: Buffer[],
): boolean {
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first < 1 || first > second || proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let [fn, sn] = [first - 1, second - 1];
  while (fn % 2 === 1) [fn, sn] = [fn >> 1, sn >> 1];
  let fr = path[0] as Buffer;
  let sr = fr;
  const fits = walk(
    fn,
    sn,
    path.slice(1),
    (c) => {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
    },
    (c) => {
      sr = nodeHash(sr, c);
    },
  );
  return fits && fr.equals(firstRoot) && sr.equals(secondRoot);
}

// ---- C2SP signed-note / tlog-checkpoint (ed25519) --------------------------

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const keyHash = (name: string, publicKey: Buffer) =>
  sha256(`${name}\n`, Buffer.of(1), publicKey).subarray(0, 4);

export interface Key {
  name: string;
  hash: Buffer;
  publicKey: KeyObject;
}

export function readVerifierKey(vkey: string): Key {
  const [name = '', hex = '', ...rest] = vkey.split('+');
  const raw = Buffer.from(rest.join('+'), 'base64');
  if (raw.length !== 33 || raw[0] !== 1) throw new Error(`not an ed25519 verifier key: ${vkey}`);
  const pub = raw.subarray(1);
  if (keyHash(name, pub).toString('hex') !== hex) throw new Error(`key hash mismatch: ${vkey}`);
  const publicKey = createPublicKey({
    key: Buffer.concat([SPKI_ED25519, pub]),
    format: 'der',
    type: 'spki',
  });
  return { name, hash: keyHash(name, pub), publicKey };
}

/** A fresh key pair in C2SP form (signer key for `LOG_SIGNER_KEY`), and a signer for forgeries. */
export function newLogKey(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const hex = keyHash(name, pub).toString('hex');
  return {
    signer: `PRIVATE+KEY+${name}+${hex}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}`,
    verifier: `${name}+${hex}+${Buffer.concat([Buffer.of(1), pub]).toString('base64')}`,
    signNote: (text: string) => {
      const sig = sign(null, Buffer.from(text, 'utf8'), privateKey);
      const blob = Buffer.concat([keyHash(name, pub), sig]).toString('base64');
      return `${text}\n— ${name} ${blob}\n`;
    },
  };
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

/** The checkpoint a note carries, or null; `signed` says whether `key` signed it. */
export function readNote(
  note: string,
  key: Key,
): { checkpoint: Checkpoint | null; signed: boolean } {
  const cut = note.lastIndexOf('\n\n');
  const text = note.slice(0, cut + 1);
  const [origin = '', size = '', root = '', ...extensions] = text.slice(0, -1).split('\n');
  const checkpoint =
    cut > 0 && /^\d+$/.test(size)
      ? { origin, size: Number(size), root: Buffer.from(root, 'base64'), extensions }
      : null;
  let signed = false;
  for (const line of note.slice(cut + 2, -1).split('\n')) {
    const [dash, name, b64 = ''] = line.split(' ');
    const blob = Buffer.from(b64, 'base64');
    if (
      dash !== '—' ||
      name !== key.name ||
      blob.length !== 68 ||
      !blob.subarray(0, 4).equals(key.hash)
    )
      continue;
    signed = verify(null, Buffer.from(text, 'utf8'), key.publicKey, blob.subarray(4));
  }
  return { checkpoint, signed };
}

export const prevLineOf = (note: string) => `prev ${sha256(note).toString('base64')}`;

/** Whether an HCS-27 message's metadata states what the note it carries states. */
const metadataAgrees = (h: Hcs27Checkpoint, cp: Checkpoint | null) =>
  cp !== null && h.logId === cp.origin && h.size === cp.size && h.root.equals(cp.root);

// ---- HCS running hash v3 and the mirror node's REST API --------------------

export interface MirrorMessage {
  consensus_timestamp: string;
  message: string;
  payer_account_id: string;
  running_hash: string;
  sequence_number: number;
  topic_id: string;
}

const u64 = (n: number | bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const entity = (id: string) => id.split('.').map((part) => u64(Number(part)));

/** SHA-384(previous ‖ 3 ‖ payer ‖ topic ‖ seconds ‖ nanos(u32) ‖ sequence ‖ SHA-384(message)). */
export function runningHash(previous: Buffer, m: MirrorMessage): Buffer {
  const [seconds = '0', nanos = '0'] = m.consensus_timestamp.split('.');
  const n = Buffer.alloc(4);
  n.writeUInt32BE(Number(nanos.padEnd(9, '0')));
  return sha(
    'sha384',
    previous,
    u64(3),
    ...entity(m.payer_account_id),
    ...entity(m.topic_id),
    u64(BigInt(seconds)),
    n,
    u64(m.sequence_number),
    sha('sha384', Buffer.from(m.message, 'base64')),
  );
}

export async function allMessages(mirror: string, topicId: string): Promise<MirrorMessage[]> {
  const out: MirrorMessage[] = [];
  let next: string | null = `/api/v1/topics/${topicId}/messages?limit=25&order=asc`;
  while (next) {
    const page = (await (await fetch(new URL(next, mirror))).json()) as {
      messages: MirrorMessage[];
      links?: { next?: string | null };
    };
    out.push(...page.messages);
    next = page.messages.length > 0 ? (page.links?.next ?? null) : null;
  }
  return out;
}

/** Sequence numbers whose running hash does not follow from the one before. */
export function brokenRunningHashes(messages: MirrorMessage[]): number[] {
  let previous = Buffer.alloc(48);
  const broken: number[] = [];
  for (const [i, m] of messages.entries()) {
    if (
      m.sequence_number !== i + 1 ||
      !runningHash(previous, m).equals(Buffer.from(m.running_hash, 'base64'))
    )
      broken.push(m.sequence_number);
    previous = Buffer.from(m.running_hash, 'base64');
  }
  return broken;
}

// ---- The checks, from a proof's JSON and the mirror ------------------------

/** The fields of `GET /v1/wires/{id}/proof` (mode "log") these checks read. */
export interface Proof {
  wire_id: string;
  stream_seq: number;
  leaf: string;
  leaf_index: number;
  inclusion_path: string[];
  checkpoint: string;
  checkpoint_anchor: { hcs_topic_id: string; hcs_sequence_number: number; running_hash: string };
}

export const b64 = (s: string) => Buffer.from(s, 'base64');
export const textOf = (m: MirrorMessage) => b64(m.message).toString('utf8');

/** What the independent verifier finds wrong with one proof (nothing: []). */
export async function checkProof(mirror: string, vkey: string, p: Proof): Promise<string[]> {
  const key = readVerifierKey(vkey);
  const messages = await allMessages(mirror, p.checkpoint_anchor.hcs_topic_id);
  const seq = p.checkpoint_anchor.hcs_sequence_number;
  const onHcs = messages[seq - 1];
  const found: string[] = [];
  const leaf = JSON.parse(p.leaf) as Record<string, unknown>;
  if (leaf.wire_id !== p.wire_id || leaf.stream_seq !== p.stream_seq) found.push('leaf');
  const hcs27 = onHcs ? readHcs27(textOf(onHcs)) : null;
  if (hcs27?.note !== p.checkpoint) found.push('on-hcs');
  if (!readNote(p.checkpoint, key).signed) found.push('signature');
  const cp = hcs27 ? readNote(hcs27.note, key).checkpoint : null;
  if (hcs27 && !metadataAgrees(hcs27, cp)) found.push('metadata');
  const path = p.inclusion_path.map(b64);
  if (!cp || !inclusionHolds(p.leaf_index, cp.size, leafHash(p.leaf), path, cp.root))
    found.push('inclusion');
  if (
    brokenRunningHashes(messages).includes(seq) ||
    onHcs?.running_hash !== p.checkpoint_anchor.running_hash
  )
    found.push('running-hash');
  return found;
}

/** What the independent verifier finds wrong with the topic's checkpoint chain, by HCS message. */
export async function checkChain(
  mirror: string,
  vkey: string,
  topicId: string,
  consistencyPath: (from: number, to: number) => Promise<string[]>,
): Promise<{ checkpoints: number; found: string[] }> {
  const key = readVerifierKey(vkey);
  const origin = `${key.name}/${topicId}`;
  const messages = await allMessages(mirror, topicId);
  const found = brokenRunningHashes(messages).map((seq) => `running-hash #${seq}`);
  let previous: { note: string; size: number; root: Buffer } | null = null;
  let checkpoints = 0;
  for (const m of messages) {
    const hcs27 = readHcs27(textOf(m));
    if (!hcs27) continue;
    const note = hcs27.note;
    const { checkpoint: cp, signed } = readNote(note, key);
    if (cp?.origin !== origin) continue;
    checkpoints++;
    if (!signed) {
      found.push(`signature #${m.sequence_number}`);
      continue;
    }
    if (!metadataAgrees(hcs27, cp)) found.push(`metadata #${m.sequence_number}`);
    const prev = cp.extensions.find((l) => l.startsWith('prev '));
    const metaPrev = hcs27.prev;
    if (
      prev !== (previous ? prevLineOf(previous.note) : undefined) ||
      (previous
        ? metaPrev?.size !== previous.size || !metaPrev.root.equals(previous.root)
        : metaPrev !== null)
    )
      found.push(`prev #${m.sequence_number}`);
    if (previous) {
      const proof =
        previous.size === cp.size ? [] : (await consistencyPath(previous.size, cp.size)).map(b64);
      if (!consistencyHolds(previous.size, cp.size, previous.root, cp.root, proof))
        found.push(`consistency #${m.sequence_number}`);
    }
    previous = { note, size: cp.size, root: cp.root };
  }
  return { checkpoints, found };
}
