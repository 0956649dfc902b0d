import { env } from 'cloudflare:test';
import { streamStub } from '../../../src/stream/stub';
import type { Answer, Received } from '../../support/webhook-receiver';

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
