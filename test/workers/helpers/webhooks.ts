import { env } from 'cloudflare:test';
import { streamStub } from '../../../src/stream/stub';
import type { Answer, Received } from '../../support/webhook-receiver';
import { post, wire11 } from './wires';

export type { Received };

/** Tells the receiver how endpoint `name` answers and which secrets it verifies with. */
export async function receiver(
  name: string,
  config: { secrets?: string[]; mode?: Answer; script?: Answer[]; retryAfter?: string },
): Promise<void> {
  const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/control/${name}`, {
    method: 'PUT',
    body: JSON.stringify(config),
  });
  await res.body?.cancel();
}

/** What the receiver got for `name`, in arrival order. */
export async function received(name: string): Promise<Received[]> {
  const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/control/${name}`);
  return (await res.json()) as Received[];
}

export function hookUrl(name: string): string {
  return `${env.WEBHOOK_RECEIVER_URL}/hooks/${name}`;
}

/** Registers endpoint `name` on `streamId` pointing at the receiver; answers its secret. */
export async function register(
  streamId: string,
  name: string,
  types: string[] = ['*'],
): Promise<string> {
  const result = await streamStub(env, streamId).registerWebhook({
    id: name,
    url: hookUrl(name),
    types,
  });
  if (!result.ok) throw new Error(`register ${name}: ${result.detail}`);
  await receiver(name, { secrets: [result.secret] });
  return result.secret;
}

/** Polls `probe` until `done` holds (the receiver is outside the Worker: no event to await). */
export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether the receiver answered this request 2xx. */
export const delivered = (r: { answer: string }) => r.answer === 'ok';

/** Appends a Wire to `streamId` (a `review.concern`); answers its wire_id. */
export async function appendWire(streamId: string): Promise<string> {
  const body = wire11(streamId, { correlation_id: null });
  const res = await post(streamId, body);
  if (res.status !== 201) throw new Error(`append to ${streamId}: HTTP ${res.status}`);
  return body.wire_id;
}

/**
 * Waits up to `ms` for requests to `name` that must never come, past the
 * first `skip` it got; answers those that came.
 */
export async function watchFor(
  name: string,
  unwanted: (r: Received) => boolean,
  ms = 4000,
  skip = 0,
): Promise<Received[]> {
  const after = (rs: Received[]) => rs.slice(skip).filter(unwanted);
  return after(
    await until(
      () => received(name),
      (rs) => after(rs).length > 0,
      ms,
    ),
  );
}

/** The webhook body of a forwarded Wire: `{type, timestamp, data: <the Wire>}`. */
export function wireIdOf(delivery: Received): string {
  return (JSON.parse(delivery.body) as { data: { wire_id: string } }).data.wire_id;
}

let names = 0;
/** An endpoint name no other test uses (the receiver outlives test files). */
export function uniqueName(prefix: string): string {
  names += 1;
  return `${prefix}-${Date.now().toString(36)}-${names}`;
}
