/** Where one Wire sits on HCS. `running_hash` is base64, as the mirror node serves it. */
export interface AnchorRecord {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  hcs_topic_id: string;
  hcs_sequence_number: number;
  consensus_timestamp: string;
  running_hash: string;
  /** Chunks the message took (the sequence number is the last chunk's, as the SDK reports). */
  hcs_chunks: number;
}

/** The `anchor` field of a served Wire. */
export type AnchorStatus =
  | { status: 'pending' }
  | ({ status: 'anchored'; topic: string } & Omit<
      AnchorRecord,
      'wire_id' | 'stream_id' | 'stream_seq'
    >);

/** What `GET /v1/streams/{stream_id}` says of a stream (its head, from the sequencer). */
export interface StreamInfo {
  stream_id: string;
  last_seq: number;
  last_type: string | null;
  count: number;
  created_at: string | null;
  updated_at: string | null;
}
