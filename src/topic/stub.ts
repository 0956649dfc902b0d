import type { Env } from '../env';
import type { StoredWire } from '../protocol';
import type { ListenResult } from './listener';
import type { AnchoringView } from './log-anchoring';
import type { AnchoringSettings, ConsistencyView, InclusionView } from './log-mode';
import type { TopicRow } from './topic-log';

/** A TopicObject's status, as `GET /v1/topics` shows it. */
export interface TopicStatus {
  name: string | null;
  hcs_topic_id: string | null;
  total: number;
  anchored: number;
  /** Wires the D1 read models hold (with or without their anchor). */
  projected: number;
  /** Why anchoring last failed; null once a pass succeeds. */
  last_error: string | null;
  /** Why the last D1 projection failed (retried by the alarm); null once one succeeds. */
  projection_error: string | null;
  listened_to_seq: number;
}

export type AnchoredRow = Pick<
  TopicRow,
  | 'wire_id'
  | 'stream_id'
  | 'stream_seq'
  | 'message'
  | 'hcs_sequence_number'
  | 'consensus_timestamp'
  | 'running_hash'
  | 'hcs_chunks'
  | 'origin'
> & {
  /** Log mode: the Wire is this leaf of the log, anchored by the checkpoint at `hcs_sequence_number`. */
  log?: { leaf_index: number };
};

/** A log-mode Wire's proof (issue 31): its inclusion in a checkpoint, and the log's key. */
/** The log's keys: the current one, and all a checkpoint may be signed by (current first). */
export type LogKeyNames = { log_origin: string; verifier_key: string; verifier_keys: string[] };
export type LogProof = InclusionView & LogKeyNames;

/** A Wire named by its stream and id. */
export type WireKey = { stream_id: string; wire_id: string };
/**
 * A Wire the topic took, and where it holds it on HCS (null: not confirmed
 * yet); while unconfirmed, the transaction ids it was sent under (none before
 * it is sent, and none in log mode, where checkpoints carry the ids).
 */
export type HeldWire = WireKey & { hcs_sequence_number: number | null; tx_ids: string[] };
/** A Wire an agent put on HCS directly, as its stream took it (JSON), and where. */
export type IngestedWire = {
  body: string;
  hcs_sequence_number: number;
  consensus_timestamp: string | null;
};

/** The TopicObject as its callers see it over RPC (declared once, see stream/stub.ts). */
export interface TopicApi {
  accept(name: string, wires: StoredWire[]): Promise<number>;
  listen(): Promise<ListenResult>;
  anchored(
    afterSeq: number,
    limit: number,
  ): Promise<{ hcs_topic_id: string | null; wires: AnchoredRow[] }>;
  find(streamId: string, wireId: string): Promise<AnchoredRow | null>;
  held(wires: WireKey[]): Promise<HeldWire[]>;
  ingested(seqs: number[]): Promise<IngestedWire[]>;
  status(): Promise<TopicStatus>;
  setAnchoring(own: Partial<AnchoringSettings>): Promise<AnchoringSettings>;
  anchoring(): Promise<AnchoringView & { name: string | null; hcs_topic_id: string | null }>;
  logProof(streamId: string, wireId: string): Promise<LogProof | null>;
  logConsistency(from: number, to: number): Promise<(ConsistencyView & LogKeyNames) | null>;
}

export function topicStub(env: Pick<Env, 'TOPICS'>, name: string): TopicApi {
  return env.TOPICS.get(env.TOPICS.idFromName(name)) as unknown as TopicApi;
}
