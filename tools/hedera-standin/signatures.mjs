// @ts-check
// Signature checks as a consensus node does them: a `Key` (ed25519, key list
// or threshold key) is satisfied by the transaction's signature map when
// enough of its ed25519 keys have a pair whose prefix matches and whose
// signature verifies over the body bytes. ECDSA keys are not supported here.
import { createPublicKey, verify } from 'node:crypto';
import { proto } from '@hashgraph/proto';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** @type {Map<string, import('node:crypto').KeyObject>} */
const keyCache = new Map();

/** @param {Uint8Array} raw 32-byte ed25519 public key */
function publicKeyObject(raw) {
  const hex = Buffer.from(raw).toString('hex');
  let key = keyCache.get(hex);
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, raw]),
      format: 'der',
      type: 'spki',
    });
    keyCache.set(hex, key);
  }
  return key;
}

/**
 * @param {Uint8Array} raw
 * @param {proto.ISignaturePair[]} pairs
 * @param {Uint8Array} body
 */
function ed25519Signed(raw, pairs, body) {
  if (raw.length !== 32) return false;
  for (const pair of pairs) {
    const prefix = pair.pubKeyPrefix ?? new Uint8Array();
    const sig = pair.ed25519 ?? new Uint8Array();
    if (sig.length !== 64) continue; // not an ed25519 pair
    if (!Buffer.from(raw).subarray(0, prefix.length).equals(Buffer.from(prefix))) continue;
    if (verify(null, body, publicKeyObject(raw), sig)) return true;
  }
  return false;
}

/**
 * Whether `key` is satisfied by the signature pairs over `body`.
 * @param {proto.IKey} key
 * @param {proto.ISignaturePair[]} pairs
 * @param {Uint8Array} body
 * @returns {boolean}
 */
export function keySatisfied(key, pairs, body) {
  if (key.ed25519) return ed25519Signed(key.ed25519, pairs, body);
  if (key.keyList) return (key.keyList.keys ?? []).every((k) => keySatisfied(k, pairs, body));
  if (key.thresholdKey) {
    const keys = key.thresholdKey.keys?.keys ?? [];
    const need = key.thresholdKey.threshold ?? 0;
    return keys.filter((k) => keySatisfied(k, pairs, body)).length >= need;
  }
  return false;
}

/** @param {string} publicKeyHex @returns {proto.IKey} */
export function ed25519Key(publicKeyHex) {
  return { ed25519: Buffer.from(publicKeyHex, 'hex') };
}

/** @param {proto.IKey} key @returns {string} base64 protobuf bytes, for the ledger */
export function encodeKey(key) {
  return Buffer.from(proto.Key.encode(key).finish()).toString('base64');
}

/** @param {string} b64 @returns {proto.Key} */
export function decodeKey(b64) {
  return proto.Key.decode(Buffer.from(b64, 'base64'));
}
