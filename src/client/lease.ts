import { sleep } from './backoff';
import type { WirestreamClient } from './client';
import type { Payload } from './client-types';
import { WirestreamError } from './errors';
import type { AppendReceipt } from './types';

export interface ClaimOptions {
  /** Task stream attempt (default 1), or pass a full `task:<id>:attempt:<n>` as the task. */
  attempt?: number;
  role: string;
  /** Agent id; default: the sender's id without the `agent:` prefix. */
  agent?: string;
  /** Lease length asked for (default 60 s). */
  leaseMs?: number;
  /** Heartbeat period (default a third of the lease). 0 turns heartbeats off. */
  heartbeatMs?: number;
  capacityUnits?: number;
  /** Called once if the lease is lost (expired, superseded, revoked). */
  onLost?: (error: WirestreamError) => void;
  onRenewed?: (expiresAt: string) => void;
}

/**
 * A held task lease. It renews itself with `task.heartbeat` Wires and stamps
 * the fencing token on every lifecycle Wire it appends, so a lease that was
 * lost (expired, taken over) can never write: the server answers 409
 * `stale-fencing-token` and the lease reports itself lost.
 */
export class TaskLease {
  #expiresAt: string;
  #lost: WirestreamError | null = null;
  readonly #stop = new AbortController();

  constructor(
    private readonly client: WirestreamClient,
    readonly streamId: string,
    readonly taskId: string,
    readonly fencingToken: string,
    expiresAt: string,
    private readonly options: ClaimOptions,
  ) {
    this.#expiresAt = expiresAt;
    const every = options.heartbeatMs ?? Math.floor((options.leaseMs ?? 60_000) / 3);
    if (every > 0) void this.#beat(every);
  }

  get expiresAt(): string {
    return this.#expiresAt;
  }

  /** Null while the lease is held. */
  get lost(): WirestreamError | null {
    return this.#lost;
  }

  /** Appends a lifecycle Wire (task.started, task.complete, …) under this lease. */
  async append(type: string, payload: Payload = {}): Promise<AppendReceipt> {
    if (this.#lost) throw this.#lost;
    try {
      const { receipt } = await this.client.append(this.streamId, {
        type,
        payload: { task_id: this.taskId, ...payload, fencing_token: this.fencingToken },
      });
      return receipt;
    } catch (error) {
      this.#checkLost(error);
      throw error;
    }
  }

  /** Extends the lease now (the timer does this on its own). */
  async heartbeat(): Promise<string> {
    const receipt = await this.append('task.heartbeat', {});
    if (typeof receipt.lease_expires_at === 'string') this.#expiresAt = receipt.lease_expires_at;
    this.options.onRenewed?.(this.#expiresAt);
    return this.#expiresAt;
  }

  complete(payload: Payload = {}): Promise<AppendReceipt> {
    this.stop();
    return this.append('task.complete', payload);
  }

  release(reason = 'released by client'): Promise<AppendReceipt> {
    this.stop();
    return this.append('task.released', { reason });
  }

  /** Stops the heartbeats (the lease then runs out at `expiresAt`). */
  stop(): void {
    this.#stop.abort();
  }

  async #beat(every: number): Promise<void> {
    while (!this.#stop.signal.aborted && !this.#lost) {
      try {
        await sleep(every, this.#stop.signal);
      } catch {
        return;
      }
      try {
        await this.heartbeat();
      } catch {
        if (!this.#lost && Date.parse(this.#expiresAt) <= Date.now()) {
          this.#markLost(
            new WirestreamError(0, 'lease-expired', `the lease ran out at ${this.#expiresAt}`),
          );
        }
      }
    }
  }

  #checkLost(error: unknown): void {
    if (!(error instanceof WirestreamError)) return;
    if (['stale-fencing-token', 'not-lease-holder', 'invalid-transition'].includes(error.code)) {
      this.#markLost(error);
    }
  }

  #markLost(error: WirestreamError): void {
    if (this.#lost) return;
    this.#lost = error;
    this.stop();
    this.options.onLost?.(error);
  }
}

/**
 * Claims a task attempt by appending `task.claim`. The winner gets a lease
 * with its fencing token from the 201 receipt; a loser gets the server's 409
 * (`task-already-claimed`, with `holder` and `lease_expires_at`) as an error.
 */
export async function claimTask(
  client: WirestreamClient,
  sender: string,
  task: string,
  options: ClaimOptions,
): Promise<TaskLease> {
  const streamId = task.startsWith('task:') ? task : `task:${task}:attempt:${options.attempt ?? 1}`;
  const taskId = /^task:(.+):attempt:\d+$/.exec(streamId)?.[1] ?? task;
  const agent = options.agent ?? sender.replace(/^agent:/, '');
  const leaseMs = options.leaseMs ?? 60_000;
  const { receipt } = await client.append(streamId, {
    type: 'task.claim',
    sender,
    payload: {
      task_id: taskId,
      agent,
      role: options.role,
      lease_expires_at: new Date(Date.now() + leaseMs).toISOString(),
      ...(options.capacityUnits ? { capacity_units_reserved: options.capacityUnits } : {}),
    },
  });
  const token = receipt.fencing_token;
  if (typeof token !== 'string') {
    throw new WirestreamError(
      0,
      'no-lease',
      'the server stored the claim but returned no fencing_token (is coordination enabled?)',
      receipt,
    );
  }
  const expires = typeof receipt.lease_expires_at === 'string' ? receipt.lease_expires_at : '';
  return new TaskLease(client, streamId, taskId, token, expires, options);
}
