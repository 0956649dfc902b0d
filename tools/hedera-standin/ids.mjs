// @ts-check
// Entity ids, transaction ids and timestamps between protobuf and the
// strings the ledger and the mirror REST API use.

/** @param {unknown} v protobuf int64 (Long), number or undefined */
export function big(v) {
  return v === null || v === undefined ? 0n : BigInt(String(v));
}

/** @param {{ shardNum?: unknown, realmNum?: unknown, accountNum?: unknown, topicNum?: unknown } | null | undefined} id */
export function entityString(id) {
  if (!id) return null;
  const num = id.accountNum ?? id.topicNum;
  return `${big(id.shardNum)}.${big(id.realmNum)}.${big(num)}`;
}

/** @param {string} s @returns {{ shard: bigint, realm: bigint, num: bigint }} */
export function entityParts(s) {
  const [shard = '0', realm = '0', num = '0'] = s.split('.');
  return { shard: BigInt(shard), realm: BigInt(realm), num: BigInt(num) };
}

/** @param {string} s */
export function accountProto(s) {
  const p = entityParts(s);
  return { shardNum: Number(p.shard), realmNum: Number(p.realm), accountNum: Number(p.num) };
}

/** @param {string} s */
export function topicProto(s) {
  const p = entityParts(s);
  return { shardNum: Number(p.shard), realmNum: Number(p.realm), topicNum: Number(p.num) };
}

/** @param {{ seconds?: unknown, nanos?: number | null } | null | undefined} ts */
export function timestampNs(ts) {
  return big(ts?.seconds) * 1_000_000_000n + BigInt(ts?.nanos ?? 0);
}

/** @param {bigint | string} ns */
export function timestampProto(ns) {
  const v = BigInt(ns);
  return { seconds: Number(v / 1_000_000_000n), nanos: Number(v % 1_000_000_000n) };
}

/** "seconds.nanoseconds", nine digits, as the mirror node writes timestamps. @param {bigint | string} ns */
export function timestampString(ns) {
  const v = BigInt(ns);
  return `${v / 1_000_000_000n}.${String(v % 1_000_000_000n).padStart(9, '0')}`;
}

/** Parse "s", "s.n" (up to 9 digits) into ns, or null. @param {string} s */
export function parseTimestamp(s) {
  const m = /^(\d{1,10})(?:\.(\d{1,9}))?$/.exec(s);
  if (!m) return null;
  return BigInt(m[1] ?? '0') * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
}

/**
 * The ledger's key for a transaction id: payer@validStart, plus nonce and
 * scheduled flag when set (they make distinct transactions).
 * @param {import('@hashgraph/proto').proto.ITransactionID | null | undefined} id
 */
export function txKey(id) {
  if (!id?.accountID || !id.transactionValidStart) return null;
  let key = `${entityString(id.accountID)}@${timestampString(timestampNs(id.transactionValidStart))}`;
  if (id.scheduled) key += '?scheduled';
  if (id.nonce) key += `/${id.nonce}`;
  return key;
}
