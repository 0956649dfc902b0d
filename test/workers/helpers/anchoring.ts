import { env, runDurableObjectAlarm, SELF } from 'cloudflare:test';
import { expect, inject } from 'vitest';
import type { AnchorState, ServedWire as ClientServedWire } from '../../../src/client/types';
import { authHeaders } from './auth';
import { Subscriber } from './subscriber';
import { post, wire11 } from './wires';

/** Drives and observes HCS anchoring against the stand-in network. */

/** A Wire as `GET …/wires` serves it, its anchor state always present. */
export type ServedWire = Pick<ClientServedWire, 'wire_id' | 'stream_seq'> & { anchor: AnchorState };

export async function readWires(streamId: string): Promise<ServedWire[]> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires?limit=1000`, {
    headers: await authHeaders(),
  });
  return ((await res.json()) as { wires: ServedWire[] }).wires;
}

export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(`https://ws.test${path}`, {
    ...init,
    headers: { ...(await authHeaders()), 'Content-Type': 'application/json', ...init.headers },
  });
}

/**
 * Waits until every Wire of the stream is anchored (or the deadline), as a
 * subscriber learns it: on the stream's WebSocket, from the anchors told in
 * its frames. Anchoring drives itself (an accepted Wire starts a topic pass;
 * the topic's alarm follows consensus), so the wait only runs the alarms
 * already set once, lest a backoff left by an earlier fault hold it up.
 */
export async function untilAnchored(
  streamId: string,
  topics: string[],
  deadlineMs = 20_000,
): Promise<ServedWire[]> {
  const sub = await Subscriber.open(streamId, 0);
  try {
    await runDurableObjectAlarm(env.STREAMS.get(env.STREAMS.idFromName(streamId)));
    for (const t of topics) await runDurableObjectAlarm(env.TOPICS.get(env.TOPICS.idFromName(t)));
    await sub.until(() => sub.allAnchored(), deadlineMs).catch(() => undefined);
  } finally {
    sub.close();
  }
  return readWires(streamId);
}

export function standinUrl(): string {
  return inject('standinUrl');
}

/** What anchoring asked of the stand-in for a topic so far, by kind (refused submits included). */
export async function requestsOf(topicId: string) {
  const res = await fetch(`${standinUrl()}/__standin/requests/${topicId}`);
  return (await res.json()) as Record<'submit' | 'receipt' | 'cost' | 'record' | 'mirror', number>;
}

export async function faults(spec: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${standinUrl()}/__standin/faults`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(spec),
  });
  if (!res.ok) throw new Error(`faults: ${res.status} ${await res.text()}`);
}

export interface MirrorMessage {
  consensus_timestamp: string;
  message: string;
  running_hash: string;
  sequence_number: number;
  chunk_info: {
    number: number;
    total: number;
    initial_transaction_id: { account_id: string; transaction_valid_start: string };
  } | null;
}

export async function mirrorMessages(topicId: string): Promise<MirrorMessage[]> {
  const res = await fetch(`${standinUrl()}/api/v1/topics/${topicId}/messages?limit=100&order=asc`);
  return ((await res.json()) as { messages: MirrorMessage[] }).messages;
}

/**
 * Sequence number, consensus time and running hash as the Wires' anchors
 * state them and as the mirror serves the topic's messages, side by side
 * for one `toEqual` (unchunked Wires: one message each).
 */
export async function anchorsBesideMirror(wires: ServedWire[], topicId: string) {
  const messages = await mirrorMessages(topicId);
  return {
    stored: wires.map((w) => [
      w.anchor.hcs_sequence_number,
      w.anchor.consensus_timestamp,
      w.anchor.running_hash,
    ]),
    onMirror: messages.map((m) => [m.sequence_number, m.consensus_timestamp, m.running_hash]),
  };
}

/**
 * Puts `topic` in log mode with a checkpoint per `every` Wires and a minute's
 * wait (so checkpoints come from the Wire count alone, however slow the
 * machine), then appends `n` Wires to `streamId` (payload `{concern: tag + i}`);
 * returns their bodies.
 */
export async function appendInLogMode(
  topic: string,
  streamId: string,
  every: number,
  n: number,
  tag: string,
): Promise<ReturnType<typeof wire11>[]> {
  const set = await api(`/v1/topics/${topic}/anchoring`, {
    method: 'PUT',
    body: JSON.stringify({ mode: 'log', every, ms: 60_000 }),
  });
  expect(set.status).toBe(200);
  const bodies: ReturnType<typeof wire11>[] = [];
  for (let i = 0; i < n; i++) {
    const body = wire11(streamId, { correlation_id: null, payload: { concern: `${tag}${i}` } });
    bodies.push(body);
    expect((await post(streamId, body)).status).toBe(201);
  }
  return bodies;
}
