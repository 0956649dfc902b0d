import type { Env } from '../env';
import type { AppendResult } from '../kernel/kind';
import type { Endpoint } from '../kernel/webhooks/endpoint';
import type {
  DeliveryAttempt,
  MessageStatus,
  UnroutedWebhook,
  WebhookMessage,
} from '../kernel/webhooks/schema';
import type { AnchorRecord, Draft, Failure } from '../protocol';
import type { StoredWire, StreamInfo } from './wire-log';

/** What `appendMany` answers: every receipt in order, or the first refusal (`extra.index`). */
export type AppendManyResult = { ok: true; results: AppendResult[] } | Failure;

/** Seqs one `readSeqs` call reads at most. */
export const MAX_SEQS_READ = 500;

export interface ReadPage {
  wires: StoredWire[];
  last_seq: number;
}

/**
 * The StreamObject as its callers see it over RPC. Declared here once because
 * the generated RPC types recurse without end on JSON payloads.
 */
export interface StreamApi {
  append(draft: Draft, expectedSeq?: number, ifMatchSeq?: number): Promise<AppendResult>;
  /** The replay of `draft` if the stream holds its wire_id with this content; null otherwise. Stores nothing. */
  replayOf(draft: Draft): Promise<AppendResult | null>;
  /** Appends several Wires in order, all or nothing (`extra.index` names the refused one). */
  appendMany(drafts: readonly Draft[]): Promise<AppendManyResult>;
  /** Resolves with the last seq once it passes `seq` (woken by the append), or after `ms`. */
  waitPast(seq: number, ms: number): Promise<number>;
  read(afterSeq: number, limit: number): Promise<ReadPage>;
  /** The Wires at `seqs` (at most 500), in seq order; seqs the stream does not hold are left out. */
  readSeqs(seqs: number[]): Promise<StoredWire[]>;
  info(): Promise<StreamInfo | null>;
  subscription(): Promise<{ subscribers: number; last_seq: number }>;
  /** Decision state of the stream's kind (its `view` hook). */
  coordination(): Promise<{ kind: string | null; state: unknown; outbox: number }>;
  markAnchored(topic: string, anchors: AnchorRecord[]): Promise<number>;
  setDedicatedTopic(dedicated: boolean): Promise<{ dedicated: boolean; role: string | null }>;
  ingestAnchored(
    draft: Draft,
    expectedSeq: number | undefined,
    topic: string,
    anchor: Omit<AnchorRecord, 'stream_seq'>,
  ): Promise<AppendResult>;
  fetch(request: Request): Promise<Response>;
  // Webhooks on this stream (kernel/webhooks/): what a module's routes call.
  registerWebhook(
    input: unknown,
  ): Promise<{ ok: true; endpoint: Endpoint; secret: string } | Failure>;
  removeWebhook(id: string): Promise<{ ok: true } | Failure>;
  rotateWebhookSecret(
    id: string,
    graceSeconds?: number,
  ): Promise<{ ok: true; secret: string; previous_expires_at: string } | Failure>;
  enableWebhook(id: string, enabled: boolean): Promise<Failure | null>;
  webhooks(): Promise<Endpoint[]>;
  webhookLog(id: string, limit?: number): Promise<DeliveryAttempt[]>;
  webhookMessages(id: string, status?: MessageStatus, limit?: number): Promise<WebhookMessage[]>;
  /** Ids a kind sent messages to while no endpoint had them (counted, not kept). */
  webhookUnrouted(): Promise<UnroutedWebhook[]>;
  replayWebhook(endpointId: string, messageId: string): Promise<{ ok: true } | Failure>;
}

export function streamStub(env: Pick<Env, 'STREAMS'>, streamId: string): StreamApi {
  return env.STREAMS.get(env.STREAMS.idFromName(streamId)) as unknown as StreamApi;
}

/** The Wires at `seqs` of one stream, by seq (`readSeqs`, MAX_SEQS_READ seqs a call). */
export async function wiresAt(
  stub: Pick<StreamApi, 'readSeqs'>,
  seqs: readonly number[],
): Promise<Map<number, StoredWire>> {
  const found = new Map<number, StoredWire>();
  for (let i = 0; i < seqs.length; i += MAX_SEQS_READ) {
    for (const wire of await stub.readSeqs(seqs.slice(i, i + MAX_SEQS_READ))) {
      found.set(wire.stream_seq, wire);
    }
  }
  return found;
}
