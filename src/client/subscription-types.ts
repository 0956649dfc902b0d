import type { RetryPolicy } from './backoff';
import type { Http } from './http';
import type { Gap } from './resume-cursor';
import type { AnchorUpdate, ServedWire, ServerFrame, WebSocketConstructor } from './types';

export type SubscriptionState = 'connecting' | 'catching-up' | 'live' | 'reconnecting' | 'closed';

export interface SubscribeOptions {
  /** Deliver Wires after this sequence number (default 0: from the start). */
  afterSeq?: number;
  /** Called with each batch in order; acknowledged (lazily, as the server asks) once it resolves. */
  onWires: (wires: ServedWire[]) => void | Promise<void>;
  onState?: (state: SubscriptionState, detail?: { reason?: string; delayMs?: number }) => void;
  onCaughtUp?: (lastSeq: number) => void;
  onGap?: (gap: Gap) => void;
  /** Wires already delivered that are now anchored on HCS. */
  onAnchored?: (updates: AnchorUpdate[]) => void;
  /** Frames of other kinds, passed through untouched. */
  onFrame?: (frame: ServerFrame) => void;
  /** Which number orders the feed (default `stream_seq`). */
  seqOf?: (wire: ServedWire) => number;
  signal?: AbortSignal;
}

export interface SubscriptionDeps {
  http: Http;
  WebSocket: WebSocketConstructor;
  /** Path of the feed, e.g. `/v1/streams/project:x/ws`. */
  path: string;
  reconnect: RetryPolicy;
  /** `protocol` sends the token as `wirestream.bearer.<token>`; `ticket` swaps it for a `?ticket=`. */
  wsAuth: 'protocol' | 'ticket';
  pingMs: number;
}
