import { newWireId } from '../protocol/ids';
import type { WirestreamClient } from './client';
import type { Subscription } from './subscription';
import type { SubscribeOptions } from './subscription-types';

/**
 * Run documents (seed 002) from the SDK: the harness calls `message_actor`
 * and `request_conductor` as `messageActor` / `requestConductor`, plus the
 * reads. A message's `message_id` and `ts` are fixed before the first
 * attempt, so a retry after a lost answer hears the stored verdict.
 */
export type WriterVerdict =
  | {
      type: 'WriterAck';
      run_id: string;
      message_id: string;
      revision: number;
      outcome: 'canon' | 'proposal' | 'merged' | 'declined' | 'delivered';
      proposal_id: string | null;
    }
  | { type: 'WriterReject'; run_id: string; message_id: string; reason: string; revision: number };

/** An actor message without its run and id (the SDK fills them in). */
export type ActorMessageInput = { type: string; message_id?: string; [field: string]: unknown };

export interface RunCreateInput {
  run_id: string;
  title?: string;
  sections: { id: string; title?: string; body?: string; state?: string }[];
  writer: string;
  conductors?: string[];
  workers?: string[];
}

export class RunsClient {
  constructor(private readonly client: WirestreamClient) {}

  async create(input: RunCreateInput): Promise<{ run_id: string; revision: number }> {
    const res = await this.client.http.request<{ run_id: string; revision: number }>(
      'POST',
      '/v1/runs',
      {
        body: { ...input, ts: new Date().toISOString() },
      },
    );
    return res.body;
  }

  /** The seed's `message_actor`: one actor message to the run's writer; its verdict. */
  async messageActor(runId: string, message: ActorMessageInput): Promise<WriterVerdict> {
    const body = {
      ...message,
      run_id: runId,
      message_id: message.message_id ?? newWireId(),
      ts: typeof message.ts === 'string' ? message.ts : new Date().toISOString(),
    };
    const res = await this.client.http.request<WriterVerdict>(
      'POST',
      `/v1/runs/${runId}/messages`,
      { body },
    );
    return res.body;
  }

  /** The seed's `request_conductor`: a `ConductorRequest` delivered to the run's conductors. */
  requestConductor(
    runId: string,
    kind: string,
    payload: Record<string, unknown> = {},
    correlation?: string,
  ): Promise<WriterVerdict> {
    return this.messageActor(runId, {
      type: 'ConductorRequest',
      kind,
      payload,
      ...(correlation ? { correlation } : {}),
    });
  }

  /** Canon at `revision` (latest when omitted), with proposals apart. */
  document<T = Record<string, unknown>>(runId: string, revision?: number): Promise<T> {
    const q = revision === undefined ? '' : `?revision=${revision}`;
    return this.client.get<T>(`/v1/runs/${runId}/document${q}`);
  }

  revisions<T = Record<string, unknown>>(runId: string): Promise<T> {
    return this.client.get<T>(`/v1/runs/${runId}/revisions`);
  }

  diff<T = Record<string, unknown>>(runId: string, from: number, to?: number): Promise<T> {
    return this.client.get<T>(
      `/v1/runs/${runId}/diff?from=${from}${to === undefined ? '' : `&to=${to}`}`,
    );
  }

  /** The writer's mailbox, live with resume (the stream `run-mailbox:<run_id>`). */
  followMailbox(runId: string, options: SubscribeOptions): Subscription {
    return this.client.subscribe(`run-mailbox:${runId}`, options);
  }

  /** Worker progress and findings, live (the stream `run-trace:<run_id>`). */
  followTrace(runId: string, options: SubscribeOptions): Subscription {
    return this.client.subscribe(`run-trace:${runId}`, options);
  }
}
