import {
  emptyRunningHash,
  entityNum,
  nextRunningHash,
  splitTimestamp,
} from '../anchor/running-hash';
import { fromBase64, toBase64 } from '../protocol/base64';
import { errorFromResponse } from './errors';

/** One message as the mirror node's REST API serves it. */
export interface MirrorMessage {
  consensus_timestamp: string;
  topic_id: string;
  message: string;
  running_hash: string;
  running_hash_version: number;
  sequence_number: number;
  payer_account_id: string;
  chunk_info?: { number: number; total: number } | null;
}

export interface TopicCheck {
  topic_id: string;
  /** Messages whose running hash was recomputed and matched. */
  checked: number;
  last_sequence_number: number;
  ok: boolean;
  /** The first message that did not check out, and why. */
  problem?: { sequence_number: number; reason: string };
}

/** Whether a mirror request got no answer at all (Node's fetch says only "fetch failed"). */
export function mirrorUnreached(error: unknown): error is TypeError {
  return error instanceof TypeError && error.message === 'fetch failed';
}

export interface MirrorOptions {
  mirrorUrl: string;
  fetch?: typeof fetch;
}

async function mirrorGet<T>(options: MirrorOptions, path: string): Promise<T> {
  const doFetch = options.fetch ?? ((i, init) => globalThis.fetch(i, init));
  const url = path.startsWith('http') ? path : `${options.mirrorUrl.replace(/\/$/, '')}${path}`;
  const res = await doFetch(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw await errorFromResponse(res);
  return (await res.json()) as T;
}

/** Every message of a topic after `afterSeq`, in order, following `links.next`. */
export async function* mirrorMessages(
  options: MirrorOptions,
  topicId: string,
  afterSeq = 0,
): AsyncGenerator<MirrorMessage> {
  let next: string | null =
    `/api/v1/topics/${topicId}/messages?sequencenumber=gt:${afterSeq}&limit=100&order=asc`;
  while (next) {
    const page: { messages: MirrorMessage[]; links?: { next?: string | null } } = await mirrorGet(
      options,
      next,
    );
    yield* page.messages;
    next = page.links?.next ?? null;
    if (page.messages.length === 0) return;
  }
}

/** The topic's newest sequence number (0 if it has no messages): the total for a progress bar. */
export async function latestSequence(options: MirrorOptions, topicId: string): Promise<number> {
  const page: { messages: MirrorMessage[] } = await mirrorGet(
    options,
    `/api/v1/topics/${topicId}/messages?limit=1&order=desc`,
  );
  return page.messages[0]?.sequence_number ?? 0;
}

/** Recomputes `message`'s running hash (v3) from the previous one. */
export async function expectedRunningHash(
  previous: Uint8Array,
  message: MirrorMessage,
): Promise<Uint8Array> {
  const { seconds, nanos } = splitTimestamp(message.consensus_timestamp);
  return nextRunningHash({
    previous,
    payer: entityNum(message.payer_account_id),
    topic: entityNum(message.topic_id),
    consensusSeconds: seconds,
    consensusNanos: nanos,
    sequenceNumber: message.sequence_number,
    message: fromBase64(message.message),
  });
}

/** A topic's message as the mirror served it, and why its place in the chain does not hold (or null). */
export interface WalkedMessage {
  message: MirrorMessage;
  problem: string | null;
}

/**
 * Every message of a topic from its first, each with its running hash
 * recomputed from the previous one and its sequence number checked for
 * holes. After a problem the walk goes on from the hash the mirror served.
 */
export async function* walkTopic(
  options: MirrorOptions,
  topicId: string,
): AsyncGenerator<WalkedMessage> {
  let previous = emptyRunningHash();
  let expectedSeq = 1;
  for await (const message of mirrorMessages(options, topicId)) {
    let problem: string | null = null;
    if (message.sequence_number !== expectedSeq) {
      problem = `expected sequence number ${expectedSeq}, the mirror served ${message.sequence_number}`;
    } else if (message.running_hash_version !== 3) {
      problem = `running hash version ${message.running_hash_version} is not 3`;
    } else if (toBase64(await expectedRunningHash(previous, message)) !== message.running_hash) {
      problem = 'the running hash does not follow from the previous one and this message';
    }
    previous = fromBase64(message.running_hash);
    expectedSeq = message.sequence_number + 1;
    yield { message, problem };
  }
}

/**
 * Walks a topic from its first message, recomputing every running hash from
 * the previous one and checking that sequence numbers have no holes. A
 * mirror that altered, dropped or reordered anything fails here.
 */
export async function verifyTopic(
  options: MirrorOptions & { onProgress?: (checked: number, seq: number) => void },
  topicId: string,
): Promise<TopicCheck> {
  let checked = 0;
  let last = 0;
  for await (const { message, problem } of walkTopic(options, topicId)) {
    if (problem !== null) {
      return {
        topic_id: topicId,
        checked,
        last_sequence_number: last,
        ok: false,
        problem: { sequence_number: last + 1, reason: problem },
      };
    }
    checked++;
    last = message.sequence_number;
    options.onProgress?.(checked, last);
  }
  return { topic_id: topicId, checked, last_sequence_number: last, ok: true };
}

/** Message `seq` of a topic, and the running hash it follows from (the previous message's). */
export async function messageWithPrevious(
  options: MirrorOptions,
  topicId: string,
  seq: number,
): Promise<{ message: MirrorMessage; previous: Uint8Array }> {
  const base = `/api/v1/topics/${topicId}/messages`;
  const message = await mirrorGet<MirrorMessage>(options, `${base}/${seq}`);
  const previous =
    seq === 1
      ? emptyRunningHash()
      : fromBase64((await mirrorGet<MirrorMessage>(options, `${base}/${seq - 1}`)).running_hash);
  return { message, previous };
}

/**
 * Why an envelope proof's `message` is not the Wire the proof names, or null
 * when it is (or the message is not carried whole). The message's bytes are
 * checked against HCS by `verifyMessage`; this ties them to the `wire_id`.
 */
export function namedWireProblem(wireId: unknown, message: unknown): string | null {
  if (typeof message !== 'string') return null;
  let named: unknown;
  try {
    named = (JSON.parse(message) as { wire_id?: unknown } | null)?.wire_id;
  } catch {
    return "the proof's message is not JSON";
  }
  return named === wireId
    ? null
    : `the proof's message is Wire ${JSON.stringify(named ?? null)}, not ${JSON.stringify(wireId)}`;
}

/**
 * Checks one anchored message: its running hash must follow from the
 * previous message's hash and its own content; with `body`, its content must
 * be exactly that text (the Wire's canonical JSON).
 */
export async function verifyMessage(
  options: MirrorOptions,
  topicId: string,
  sequenceNumber: number,
  body?: string,
): Promise<{ ok: boolean; reason?: string; message: MirrorMessage }> {
  const { message, previous } = await messageWithPrevious(options, topicId, sequenceNumber);
  const computed = await expectedRunningHash(previous, message);
  if (toBase64(computed) !== message.running_hash) {
    return { ok: false, reason: 'the running hash does not match the recomputed one', message };
  }
  if (body !== undefined) {
    const served = new TextDecoder().decode(fromBase64(message.message));
    if (served !== body)
      return { ok: false, reason: 'the anchored message differs from the Wire', message };
  }
  return { ok: true, message };
}
