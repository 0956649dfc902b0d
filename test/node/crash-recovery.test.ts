import { describe, expect, it } from 'vitest';
import { WirestreamClient } from '../../src/client';
import { crashMidBurst, eventually } from '../support/crash-burst';
import { devServerForFile } from '../support/dev-server';

/**
 * "Accepted data is never lost": the whole runtime (wrangler and workerd) is
 * killed with SIGKILL in the middle of a burst of appends, while Wires are
 * still waiting in outboxes and in flight to HCS, then started again on the
 * same state. Every Wire that got a 201 must still be in its stream at its
 * seq, reach HCS exactly once and reach D1, without any further append to
 * wake it; a client retrying the appends it never heard back about gets the
 * same Wire, never a second one.
 */
const SENDER = 'agent:crash-test';
const CLIENTS = 12;
const dev = devServerForFile(SENDER);

interface Sent {
  body: string;
  streamId: string;
}

const headers = () => ({
  'Content-Type': 'application/json',
  ...(dev.token ? { Authorization: `Bearer ${dev.token}` } : {}),
});

async function post(s: Sent): Promise<{ status: number; seq?: number }> {
  const res = await fetch(`${dev.server.url}/v1/streams/${encodeURIComponent(s.streamId)}/wires`, {
    method: 'POST',
    headers: headers(),
    body: s.body,
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await res.json()) as { stream_seq?: number };
  return { status: res.status, ...(json.stream_seq ? { seq: json.stream_seq } : {}) };
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: headers() });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface MirrorChunk {
  message: string;
  chunk_info?: {
    initial_transaction_id: { account_id: string; transaction_valid_start: string };
    number: number;
    total: number;
  } | null;
}

interface ServedWire {
  wire_id: string;
  stream_seq: number;
  anchor?: { status: string; hcs_topic_id?: string };
}

async function readStream(streamId: string): Promise<ServedWire[]> {
  const all: ServedWire[] = [];
  let after = 0;
  for (;;) {
    const page = await getJson<{ wires: ServedWire[]; next_after_seq: number | null }>(
      `${dev.server.url}/v1/streams/${encodeURIComponent(streamId)}/wires?after_seq=${after}&limit=1000`,
    );
    all.push(...page.wires);
    if (page.next_after_seq === null) return all;
    after = page.next_after_seq;
  }
}

describe('a crash of the whole runtime mid-burst', () => {
  it('keeps, anchors once and projects every accepted Wire', async () => {
    const run = Date.now().toString(36);
    const project = `project:crash-${run}`;
    const streams = [project, `note:crash-${run}-a`, `note:crash-${run}-b`];
    const acked = new Map<string, { streamId: string; seq: number }>();
    const unknown = new Map<string, Sent>();
    let crashing = false;

    // Appenders post until the runtime dies under them.
    const anchored = async () => {
      const ids = new Set<string>();
      for (const streamId of streams) {
        for (const w of await readStream(streamId)) {
          if (w.anchor?.status === 'anchored') ids.add(w.wire_id);
        }
      }
      return ids;
    };
    const projected = async () => {
      const ids = new Set<string>();
      let cursor: string | null = null;
      do {
        const q = `correlation_id=${encodeURIComponent(project)}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: { wires: { wire_id: string }[]; next_cursor: string | null } = await getJson(
          `${dev.server.url}/v1/wires?${q}`,
        );
        for (const w of page.wires) ids.add(w.wire_id);
        cursor = page.next_cursor;
      } while (cursor);
      return ids;
    };
    const missing = (ids: Set<string> | undefined) =>
      [...acked.keys()].filter((id) => !ids?.has(id));
    const appender = async (c: number) => {
      for (let i = 0; ; i++) {
        const wireId = `crash-${run}-${c}-${i}`;
        const streamId = streams[(c + i) % streams.length] as string;
        const sent: Sent = {
          streamId,
          body: JSON.stringify({
            wire: '1.1',
            wire_id: wireId,
            stream_id: streamId,
            correlation_id: project,
            causation_id: null,
            type: 'review.concern',
            sender: SENDER,
            ts: new Date().toISOString(),
            // One in five goes to HCS in 3 chunks, so a crash can fall between them.
            payload: {
              concern: `client ${c} wire ${i}`,
              ...(i % 5 === 0 ? { notes: '.'.repeat(2500) } : {}),
            },
          }),
        };
        try {
          const r = await post(sent);
          if (r.status !== 201 || r.seq === undefined) {
            if (crashing) throw new Error(`status ${r.status}`);
            throw new Error(`append ${wireId} answered ${r.status} before the crash`);
          }
          acked.set(wireId, { streamId, seq: r.seq });
        } catch (error) {
          if (!crashing) throw error;
          unknown.set(wireId, sent); // no answer: it may or may not have been taken
          return;
        }
      }
    };
    // The network takes submits but holds its answers: at the crash, Wires are
    // in outboxes, handed to the topic, and sent without an answer seen.
    let anchoredAtCrash = 0;
    await crashMidBurst(dev.server, {
      clients: CLIENTS,
      appender,
      acked: () => acked.size,
      atLeast: 600,
      beforeCrash: async () => {
        crashing = true;
        anchoredAtCrash = (await anchored()).size;
      },
    });
    const ackedBeforeCrash = acked.size;

    // 1. What was acknowledged before the crash gets anchored with nothing
    // appended since: the outboxes and the anchoring resume on their own.
    await eventually(
      60_000,
      anchored,
      (ids) => missing(ids).length === 0,
      (ids) => `${missing(ids).length} of ${ackedBeforeCrash} not anchored`,
    );

    // ... and reaches D1, still with nothing appended since.
    const ackedIds = new Set(acked.keys());
    await eventually(
      30_000,
      projected,
      (ids) => [...ackedIds].every((id) => ids.has(id)),
      (ids) =>
        `${[...ackedIds].filter((id) => !ids?.has(id)).length} of ${ackedIds.size} not in D1`,
    );

    // A client retries what it never heard back about: same Wire, same answer.
    for (const [wireId, sent] of unknown) {
      const r = await post(sent);
      expect([200, 201], `retry of ${wireId}`).toContain(r.status);
      acked.set(wireId, { streamId: sent.streamId, seq: r.seq as number });
    }

    // 2. Every acknowledged Wire is in its stream at the seq it was given; no gaps, nothing else.
    const served = new Map<string, ServedWire[]>();
    for (const streamId of streams) {
      const wires = await readStream(streamId);
      served.set(streamId, wires);
      expect(wires.map((w) => w.stream_seq)).toEqual(wires.map((_, i) => i + 1));
    }
    const total = [...served.values()].reduce((n, w) => n + w.length, 0);
    expect(total).toBe(acked.size);
    for (const [wireId, { streamId, seq }] of acked) {
      expect(served.get(streamId)?.[seq - 1]?.wire_id, `${wireId} at ${streamId}#${seq}`).toBe(
        wireId,
      );
    }

    // 3. Every one is anchored.
    await eventually(
      60_000,
      anchored,
      (ids) => ids.size === total,
      (ids) => `${ids?.size} of ${total} anchored`,
    );

    // 4. On HCS exactly once each: the topic holds each of them once and nothing else.
    const topicId = (await readStream(project))[0]?.anchor?.hcs_topic_id as string;
    // Chunks put together by their initial transaction id, each chunk once.
    const parts = new Map<string, Map<number, Buffer>>();
    let next: string | null = `/api/v1/topics/${topicId}/messages?limit=100`;
    while (next) {
      const page: { messages: MirrorChunk[]; links: { next: string | null } } = await getJson(
        `${dev.server.standin.url}${next}`,
      );
      for (const m of page.messages) {
        const first = m.chunk_info?.initial_transaction_id;
        const key = first ? `${first.account_id}@${first.transaction_valid_start}` : m.message;
        const chunks = parts.get(key) ?? new Map<number, Buffer>();
        const number = m.chunk_info?.number ?? 1;
        expect(chunks.has(number), `chunk ${number} of ${key} twice`).toBe(false);
        chunks.set(number, Buffer.from(m.message, 'base64'));
        parts.set(key, chunks);
      }
      next = page.links.next;
    }
    const onTopic = [...parts.values()].map((chunks) => {
      const bytes = Buffer.concat(
        [...chunks.keys()].sort((a, b) => a - b).map((n) => chunks.get(n) as Buffer),
      );
      return (JSON.parse(bytes.toString()) as { wire_id: string }).wire_id;
    });
    expect(onTopic.length).toBe(total);
    expect(new Set(onTopic)).toEqual(new Set(acked.keys()));

    // 5. Every one reaches D1.
    await eventually(
      30_000,
      projected,
      (ids) => ids.size === total,
      (ids) => `${ids?.size} of ${total} in D1`,
    );

    console.log(
      `crash test: ${ackedBeforeCrash} acked before the crash (${anchoredAtCrash} of them anchored), ${unknown.size} unanswered (retried), ${total} in streams, on HCS and in D1`,
    );
  }, 180_000);

  it('is invisible to an agent on the SDK: each append gets exactly one receipt, the stream exactly those Wires', async () => {
    const streamId = `project:crash-sdk-${Date.now().toString(36)}`;
    // Retries long enough to outlast a restart (wrangler dev takes a few seconds).
    const agent = new WirestreamClient({
      baseUrl: dev.server.url,
      sender: SENDER,
      retry: { attempts: 40, baseMs: 50, maxMs: 500 },
      ...(dev.token ? { token: dev.token } : {}),
    });
    const receipts: { wireId: string; seq: number; replay: boolean }[] = [];
    let crashed = false;
    let afterCrash = 0;
    const appender = async (c: number) => {
      for (let i = 0; !crashed || afterCrash < 200; i++) {
        const { receipt, replay } = await agent.append(streamId, {
          type: 'review.concern',
          payload: { concern: `agent ${c} wire ${i}` },
        });
        receipts.push({ wireId: receipt.wire_id, seq: receipt.stream_seq, replay });
        if (crashed) afterCrash++;
      }
    };
    const appenders = Array.from({ length: 8 }, (_, c) => appender(c));
    await eventually(
      15_000,
      async () => receipts.length,
      (n) => n >= 400,
      (n) => `${n} receipts`,
    );
    await dev.server.crashAndRestart();
    crashed = true;
    await Promise.all(appenders); // none of them threw

    const wires = await readStream(streamId);
    const bySeq = [...receipts].sort((a, b) => a.seq - b.seq);
    expect(bySeq.map((r) => r.seq)).toEqual(wires.map((_, i) => i + 1));
    expect(wires.map((w) => w.wire_id)).toEqual(bySeq.map((r) => r.wireId));
    console.log(
      `crash test (SDK): ${receipts.length} appends, ${receipts.filter((r) => r.replay).length} answered as replays after the crash, ${wires.length} Wires in the stream`,
    );
  }, 120_000);
});
