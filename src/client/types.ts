import type { Wire } from '../protocol/envelope';

/** A Wire as the API serves it: the stored envelope plus when it was received. */
export interface ServedWire extends Wire {
  received_at: string;
  /** Present once anchoring reports it (see `AnchorState`). */
  anchor?: AnchorState;
}

/** Where a Wire stands on HCS. Fields beyond `status` appear once it is anchored. */
export interface AnchorState {
  status: 'pending' | 'anchored' | string;
  topic?: string;
  hcs_topic_id?: string;
  hcs_sequence_number?: number;
  consensus_timestamp?: string;
  running_hash?: string;
  hcs_chunks?: number;
}

/** One entry of an `anchored` frame: a Wire the subscriber already has is now on HCS. */
export interface AnchorUpdate {
  wire_id: string;
  stream_seq: number;
  anchor: AnchorState;
}

/** `GET /v1/wires/{wire_id}/proof`: where a Wire sits on HCS. */
export interface WireProof {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  topic: string;
  network: string;
  hcs_topic_id: string;
  hcs_sequence_number: number;
  hcs_chunks: number;
  consensus_timestamp: string;
  running_hash: string;
  running_hash_version: number;
  /** The exact message text submitted to HCS. */
  message: string;
  mirror_url: string;
  hashscan_url: string | null;
}

/** The 201/200 answer to an append. */
export interface AppendReceipt {
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  received_at: string;
  [key: string]: unknown;
}

/** A frame from `…/ws`. Unknown kinds are passed to `onFrame` untouched. */
export type ServerFrame =
  | { kind: 'hello'; window: number; ack_every: number; ack_ms: number }
  | { kind: 'wires'; wires: ServedWire[]; anchored?: AnchorUpdate[] }
  | { kind: 'caught-up'; last_seq: number }
  | { kind: 'anchored'; wires: AnchorUpdate[] }
  | { kind: 'pong' }
  /** The server could not use a frame this client sent; the socket stays open. */
  | { kind: 'error'; detail: string }
  | { kind: string; [key: string]: unknown };

/**
 * The parts of the WHATWG WebSocket the client uses. Browsers and Workers
 * have it as `globalThis.WebSocket`; in Node 20 pass the `ws` package's
 * `WebSocket`, which implements the same event-target interface.
 */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: 'close',
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  addEventListener(type: 'error', listener: (event: unknown) => void): void;
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => SocketLike;
