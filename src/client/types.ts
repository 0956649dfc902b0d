import type { Wire } from '../protocol/envelope';

/** A Wire as the API serves it: the stored envelope plus when it was received. */
export interface ServedWire extends Wire {
  received_at: string;
  /** Present once anchoring reports it (see `AnchorState`). */
  anchor?: AnchorState;
}

/** Where a Wire stands on HCS. Fields beyond `state` appear once it is anchored. */
export interface AnchorState {
  state: 'pending' | 'anchored' | 'failed' | string;
  hcs_topic_id?: string;
  hcs_sequence_number?: number;
  consensus_timestamp?: string;
  running_hash?: string;
  [key: string]: unknown;
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
  | { kind: 'wires'; wires: ServedWire[] }
  | { kind: 'caught-up'; last_seq: number }
  | { kind: 'anchored'; [key: string]: unknown }
  | { kind: 'pong' }
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
