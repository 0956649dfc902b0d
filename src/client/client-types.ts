import type * as z from 'zod';
import type { StreamInfo } from '../protocol/anchor-record';
import type { Wire11Input } from '../protocol/envelope';
import type { RetryPolicy } from './backoff';
import type { Http, TokenSource } from './http';
import type { AgentKey } from './signing';
import type { AppendReceipt, ServedWire, WebSocketConstructor } from './types';

export type { StreamInfo };

export interface ClientOptions {
  /** Default `http://127.0.0.1:8787` (what `npm start` serves). */
  baseUrl?: string;
  /** Bearer token, or a function returning a fresh one. Optional while auth is off. */
  token?: TokenSource;
  /** Default `sender` for appended Wires (must match the token's subject). */
  sender?: string;
  fetch?: typeof fetch;
  /** Default `globalThis.WebSocket`; Node 20 has none: pass `ws`'s `WebSocket`. */
  WebSocket?: WebSocketConstructor;
  retry?: Partial<RetryPolicy>;
  reconnect?: Partial<RetryPolicy>;
  wsAuth?: 'protocol' | 'ticket';
  /** Keep-alive ping interval on live feeds (default 20 s). */
  pingMs?: number;
  onRetry?: ConstructorParameters<typeof Http>[0]['onRetry'];
  /** Signs every appended Wire with this key (`agentKeyFromJwk` of a key file; see signing.ts). */
  signingKey?: AgentKey | Promise<AgentKey>;
}

/** What a caller gives `append`: the envelope minus what the client fills in. */
export type AppendInput = Omit<
  z.input<typeof Wire11Input>,
  'wire' | 'stream_id' | 'wire_id' | 'sender' | 'ts'
> & {
  wire_id?: string;
  sender?: string;
  ts?: string;
  /** `If-Match`: the last stream_seq the caller saw; a 412 if the stream moved on. */
  ifMatch?: number;
};

/** A Wire payload: any JSON object. */
export type Payload = AppendInput['payload'];

export interface AppendResult {
  receipt: AppendReceipt;
  /** True when the server already had this wire_id (a retry that had landed). */
  replay: boolean;
  wire: z.input<typeof Wire11Input>;
}

export interface ProofOptions {
  /** Keep asking while the Wire is not anchored yet, for up to this long (default 0: ask once). */
  waitMs?: number;
  /**
   * The Wire's stream. A wire_id is unique within its stream only: when
   * another stream carries the same id, the server answers 409
   * `ambiguous-wire-id` unless the stream is named.
   */
  streamId?: string;
  signal?: AbortSignal;
}

export interface WirePage {
  stream_id: string;
  wires: ServedWire[];
  last_seq: number;
  next_after_seq: number | null;
}
