import { newWireId } from '../protocol/ids';
import type { WirestreamClient } from './client';
import type { Subscription } from './subscription';
import type { ServedWire } from './types';

/**
 * Runtime v1 (seed 003) from an agent process: build Envelope v1 bodies,
 * spawn and run a worker (progress, completion, failure, routed messages on
 * its own feed), and talk to a channel. A worker in a few lines:
 *
 *   const worker = await RuntimeWorker.spawn(client, { workerId: 'w1', channelId: 'support',
 *     spec: { goal: 'triage', toolset: ['logs'], mode: 'interactive' } });
 *   worker.onMessage(async (m) => { await worker.progress('running', `on it: ${m.text}`); });
 *   await worker.complete({ summary: 'done' });
 */

type Json = Record<string, unknown>;

let counter = 0;
function messageId(prefix: string): string {
  counter += 1;
  return `${prefix}-${newWireId().slice(-10)}-${counter}`;
}

/** An Envelope v1 with a fresh messageId and the current time. */
export function runtimeEnvelope(
  messageType: string,
  channelId: string,
  payload: Json,
  more: Json = {},
): Json {
  return {
    protocolVersion: '1.0',
    messageId: messageId(messageType.split('.')[0] ?? 'm'),
    messageType,
    ts: new Date().toISOString(),
    traceId: messageId('trace'),
    channelId,
    payload,
    extensions: {},
    ...more,
  };
}

export interface WorkerSpec {
  goal: string;
  toolset: string[];
  mode: 'fire_and_forget' | 'interactive';
  timeoutSeconds?: number;
  inputRefs?: string[];
}

export interface RoutedMessage {
  messageId: string;
  text: string;
  role: string;
  metadata?: Record<string, string | number | boolean>;
  seq: number;
}

async function post(client: WirestreamClient, path: string, body: Json): Promise<Json> {
  return (await client.http.request<Json>('POST', path, { body })).body;
}

async function get(client: WirestreamClient, path: string): Promise<Json> {
  return (await client.http.request<Json>('GET', path)).body;
}

/** A worker's side of the runtime (FR-5). */
export class RuntimeWorker {
  constructor(
    readonly client: WirestreamClient,
    readonly workerId: string,
    readonly channelId: string,
    readonly branchId?: string,
  ) {}

  /** `POST /v1/workers`: spawns the worker from its WorkerTaskSpec. */
  static async spawn(
    client: WirestreamClient,
    o: { workerId: string; channelId: string; branchId?: string; spec: WorkerSpec },
  ): Promise<RuntimeWorker> {
    const more: Json = { workerId: o.workerId };
    if (o.branchId) more.branchId = o.branchId;
    await post(
      client,
      '/v1/workers',
      runtimeEnvelope('worker.spawned', o.channelId, { ...o.spec }, more),
    );
    return new RuntimeWorker(client, o.workerId, o.channelId, o.branchId);
  }

  #report(messageType: string, payload: Json): Promise<Json> {
    const more: Json = this.branchId ? { branchId: this.branchId } : {};
    return post(
      this.client,
      `/v1/workers/${encodeURIComponent(this.workerId)}/events`,
      runtimeEnvelope(messageType, this.channelId, payload, more),
    );
  }

  progress(status: 'running' | 'waiting', note?: string, percent?: number): Promise<Json> {
    return this.#report('worker.progress', {
      status,
      ...(note === undefined ? {} : { note }),
      ...(percent === undefined ? {} : { percent }),
    });
  }

  complete(
    report: { summary: string; outcome?: 'success' | 'partial' | 'no_op' },
    artifactRefs: string[] = [],
    tokenUsage?: { input: number; output: number },
  ): Promise<Json> {
    return this.#report('worker.completed', {
      report,
      artifactRefs,
      ...(tokenUsage ? { tokenUsage } : {}),
    });
  }

  fail(reason: 'error' | 'cancelled', message: string): Promise<Json> {
    return this.#report('worker.failed', { reason, message });
  }

  state(): Promise<Json> {
    return get(this.client, `/v1/workers/${encodeURIComponent(this.workerId)}/state`);
  }

  /** Messages routed to this worker after `afterSeq`, read from its feed (a poll). */
  async messages(afterSeq = 0): Promise<RoutedMessage[]> {
    const out: RoutedMessage[] = [];
    for await (const wire of this.client.readAll(`worker:${this.workerId}`, afterSeq)) {
      const message = routedOf(wire);
      if (message) out.push(message);
    }
    return out;
  }

  /** Follows the worker's own feed live (WebSocket, resumed after drops) for routed messages. */
  onMessage(handler: (message: RoutedMessage) => void | Promise<void>, afterSeq = 0): Subscription {
    return this.client.subscribe(`worker:${this.workerId}`, {
      afterSeq,
      onWires: async (wires) => {
        for (const wire of wires) {
          const message = routedOf(wire);
          if (message) await handler(message);
        }
      },
    });
  }
}

function routedOf(wire: ServedWire): RoutedMessage | null {
  if (wire.type !== 'runtime.channel.message.received') return null;
  const p = wire.payload as Json;
  return {
    messageId: wire.wire_id,
    text: String(p.text ?? ''),
    role: String(p.role ?? 'user'),
    ...(p.metadata ? { metadata: p.metadata as RoutedMessage['metadata'] } : {}),
    seq: wire.stream_seq,
  };
}

/** A channel's side: open it, post messages, route to a worker, read its state. */
export class RuntimeChannel {
  constructor(
    readonly client: WirestreamClient,
    readonly channelId: string,
  ) {}

  static async open(
    client: WirestreamClient,
    channelId: string,
    policy: Json,
    contextBudget: number,
  ): Promise<RuntimeChannel> {
    await post(
      client,
      '/v1/channels',
      runtimeEnvelope('channel.opened', channelId, { policy, contextBudget }),
    );
    return new RuntimeChannel(client, channelId);
  }

  say(text: string, extra: Json = {}): Promise<Json> {
    return post(
      this.client,
      `/v1/channels/${encodeURIComponent(this.channelId)}/messages`,
      runtimeEnvelope('channel.message.received', this.channelId, { text, ...extra }),
    );
  }

  route(workerId: string, text: string): Promise<Json> {
    return post(
      this.client,
      `/v1/channels/${encodeURIComponent(this.channelId)}/route/${encodeURIComponent(workerId)}`,
      runtimeEnvelope('channel.message.received', this.channelId, { text }),
    );
  }

  state(): Promise<Json> {
    return get(this.client, `/v1/channels/${encodeURIComponent(this.channelId)}/state`);
  }
}
