import { encOf, sameClearFields } from '../private/seal';
import { legacyCanonicalJson, storedCanonicalJson } from '../protocol/canonical-json';
import { checkLogProof, readLogProof } from './log/check-proof';
import { readCheckpointMessage } from './log/hcs27';
import { ChunkAssembler, type MirrorMessage, readTopicMessages } from './mirror';
import { emptyRunningHash, stepChain } from './running-hash';

/**
 * An audit of one topic that trusts nobody: the running-hash chain is
 * recomputed from mirror data alone, and every Wire the coordinator reports
 * as anchored there is looked up on the topic and compared byte for byte with
 * the Wire the coordinator serves (canonical JSON). `npm run verify` prints it.
 */
export interface Finding {
  sequence_number: number | null;
  kind: 'sequence-gap' | 'running-hash-mismatch' | 'missing' | 'content-mismatch' | 'log-entry';
  detail: string;
}

export interface VerifyReport {
  topic_id: string;
  messages: number;
  whole_messages: number;
  last_sequence_number: number;
  last_running_hash: string | null;
  anchors_checked: number;
  findings: Finding[];
  ok: boolean;
}

/** Fetches a coordinator API path (with whatever credentials it needs); null: mirror only. */
export type ApiFetch = ((path: string) => Promise<Response>) | null;

interface Reported {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  hcs_sequence_number: number;
  origin: string;
  /** The Wire's canonical JSON as anchored (in log mode: its leaf). */
  message: string;
  /** Log mode: the Wire is this leaf of the checkpoint at `hcs_sequence_number`. */
  log?: { leaf_index: number };
}

export async function verifyTopic(
  mirrorUrl: string,
  topicId: string,
  api: ApiFetch,
): Promise<VerifyReport> {
  const findings: Finding[] = [];
  const assembler = new ChunkAssembler();
  /** Whole messages by the sequence number of their last chunk. */
  const whole = new Map<number, Uint8Array>();
  let prev = emptyRunningHash();
  let last = 0;
  let count = 0;
  let lastHash: string | null = null;
  for (;;) {
    const { messages, hasMore } = await readTopicMessages(mirrorUrl, topicId, last);
    for (const m of messages) {
      count++;
      await checkLink(m, topicId, last, prev, findings).then((h) => {
        prev = h;
      });
      last = m.sequence_number;
      lastHash = m.running_hash;
      const done = assembler.add(m);
      if (done) whole.set(done.last.sequence_number, done.bytes);
    }
    if (!hasMore || messages.length === 0) break;
  }
  let checked = 0;
  const served: Served = new Map();
  if (api) {
    for (const reported of await reportedOf(api, topicId)) {
      checked++;
      const bytes = whole.get(reported.hcs_sequence_number);
      if (!bytes) {
        findings.push({
          sequence_number: reported.hcs_sequence_number,
          kind: 'missing',
          detail: `wire ${reported.wire_id} is reported anchored at ${reported.hcs_sequence_number}; no whole message ends there`,
        });
        continue;
      }
      const onTopic = new TextDecoder().decode(bytes);
      const entry = reported.log ? await logEntryProblem(api, reported, onTopic) : null;
      if (entry) {
        findings.push({
          sequence_number: reported.hcs_sequence_number,
          kind: 'log-entry',
          detail: entry,
        });
        continue;
      }
      // A log entry's content is its leaf, which its proof placed under the checkpoint.
      const problem = await compare(
        api,
        reported,
        reported.log ? reported.message : onTopic,
        served,
      );
      if (problem)
        findings.push({
          sequence_number: reported.hcs_sequence_number,
          kind: 'content-mismatch',
          detail: problem,
        });
    }
  }
  return {
    topic_id: topicId,
    messages: count,
    whole_messages: whole.size,
    last_sequence_number: last,
    last_running_hash: lastHash,
    anchors_checked: checked,
    findings,
    ok: findings.length === 0,
  };
}

async function checkLink(
  m: MirrorMessage,
  topicId: string,
  last: number,
  prev: Uint8Array,
  findings: Finding[],
): Promise<Uint8Array> {
  const step = await stepChain(prev, last, m, topicId);
  if (!step.ok && step.kind === 'sequence-gap') {
    findings.push({
      sequence_number: m.sequence_number,
      kind: 'sequence-gap',
      detail: `expected ${last + 1}, got ${m.sequence_number}`,
    });
  } else if (!step.ok) {
    findings.push({
      sequence_number: m.sequence_number,
      kind: 'running-hash-mismatch',
      detail: `mirror says ${m.running_hash}, recomputed ${step.computed}`,
    });
  }
  return step.next;
}

async function reportedOf(
  api: (path: string) => Promise<Response>,
  topicId: string,
): Promise<Reported[]> {
  const reported: Reported[] = [];
  let after = 0;
  for (;;) {
    const res = await api(`/v1/topics/${topicId}/anchors?after_seq=${after}&limit=1000`);
    if (!res.ok) {
      // A problem+json names the reason (say, a token limited to stream prefixes).
      const detail = ((await res.json().catch(() => null)) as { detail?: unknown } | null)?.detail;
      throw new Error(
        `coordinator answered ${res.status} for the anchors of ${topicId}${typeof detail === 'string' ? `: ${detail}` : ''}`,
      );
    }
    const page = (await res.json()) as { wires: Reported[]; next_after_seq: number | null };
    reported.push(...page.wires);
    if (page.next_after_seq === null) return reported;
    after = page.next_after_seq;
  }
}

/**
 * Why a log-mode Wire is not the leaf it is listed as, under the checkpoint on
 * HCS at its sequence number (its proof from the API, checked against the
 * mirror's message), or null. The log's key is the one the proof names.
 */
async function logEntryProblem(
  api: (path: string) => Promise<Response>,
  reported: Reported,
  checkpointOnTopic: string,
): Promise<string | null> {
  const query = `?stream_id=${encodeURIComponent(reported.stream_id)}`;
  const res = await api(`/v1/wires/${encodeURIComponent(reported.wire_id)}/proof${query}`);
  if (!res.ok) return `wire ${reported.wire_id}: the coordinator serves no proof (${res.status})`;
  const read = readLogProof(await res.json());
  if (!read.ok) return `wire ${reported.wire_id}: its proof is not a log proof: ${read.reason}`;
  const proof = read.proof;
  const onTopic = readCheckpointMessage(checkpointOnTopic);
  if (onTopic && !onTopic.ok)
    return `wire ${reported.wire_id}: the checkpoint at ${reported.hcs_sequence_number}: ${onTopic.reason}`;
  if (proof.checkpoint !== onTopic?.note)
    return `wire ${reported.wire_id}: its proof's checkpoint is not the one in the message at ${reported.hcs_sequence_number}`;
  if (proof.leaf !== reported.message || proof.leaf_index !== reported.log?.leaf_index)
    return `wire ${reported.wire_id}: its proof is for another leaf than the one listed`;
  const failed = (await checkLogProof(proof)).find((c) => !c.ok);
  return failed ? `wire ${reported.wire_id}: ${failed.check}: ${failed.detail}` : null;
}

type Served = Map<string, Map<number, Record<string, unknown>>>;

/** Compares the Wire the coordinator serves with the message on HCS. */
async function compare(
  api: (path: string) => Promise<Response>,
  reported: Reported,
  onTopic: string,
  streams: Served,
) {
  let parsed: { wire_id?: unknown } | null = null;
  try {
    parsed = JSON.parse(onTopic) as { wire_id?: unknown };
  } catch {
    return `message at ${reported.hcs_sequence_number} is not JSON`;
  }
  if (parsed?.wire_id !== reported.wire_id) {
    return `message at ${reported.hcs_sequence_number} is wire ${String(parsed?.wire_id)}, not ${reported.wire_id}`;
  }
  if (reported.origin === 'hcs-first') return null; // the agent's own bytes: nothing served to compare
  const served = (await servedWires(api, reported.stream_id, streams)).get(reported.stream_seq);
  if (!served) return `stream ${reported.stream_id} does not serve seq ${reported.stream_seq}`;
  const { anchor: _a, received_at: _r, ...envelope } = served;
  // A private payload is sealed on HCS: without its key, the clear fields are what compares.
  if (encOf(parsed))
    return (await sameClearFields(envelope, parsed as Record<string, unknown>))
      ? null
      : `wire ${reported.wire_id}: the routing fields served differ from the sealed envelope on HCS`;
  // Messages anchored before Wirestream used RFC 8785 carry the earlier
  // key order; either serialisation of the served Wire proves the same content.
  return storedCanonicalJson(envelope) === onTopic || legacyCanonicalJson(envelope) === onTopic
    ? null
    : `wire ${reported.wire_id}: the Wire served by the coordinator differs from the bytes on HCS`;
}

async function servedWires(
  api: (path: string) => Promise<Response>,
  streamId: string,
  streams: Served,
) {
  let wires = streams.get(streamId);
  if (wires) return wires;
  wires = new Map();
  let after = 0;
  for (;;) {
    const res = await api(
      `/v1/streams/${encodeURIComponent(streamId)}/wires?after_seq=${after}&limit=1000`,
    );
    if (!res.ok) throw new Error(`coordinator answered ${res.status} for stream ${streamId}`);
    const page = (await res.json()) as {
      wires: (Record<string, unknown> & { stream_seq: number })[];
      next_after_seq: number | null;
    };
    for (const w of page.wires) wires.set(w.stream_seq, w);
    if (page.next_after_seq === null) break;
    after = page.next_after_seq;
  }
  streams.set(streamId, wires);
  return wires;
}
