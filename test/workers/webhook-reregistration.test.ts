import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sqlOf } from '../../src/kernel/sql';
import { streamStub } from '../../src/stream/stub';
import type { Answer } from '../support/webhook-receiver';
import {
  appendWire,
  delivered,
  hookUrl,
  received,
  receiver,
  register,
  uniqueName,
  until,
  watchFor,
  wireIdOf,
} from './helpers/webhooks';
import { uniqueStream } from './helpers/wires';

/**
 * An endpoint removed and registered again under the same id (the only way to
 * point an id at another URL) is a new endpoint: what was sent for the old one
 * is neither delivered to it, nor listed, logged or replayable under it.
 * Against the real receiver (test/support/webhook-receiver.ts), which checks
 * every signature; WEBHOOK_RETRY_SCHEDULE=0.2,0.4,… and a 1.5 s attempt
 * timeout (vitest.config.ts). A 429 with `Retry-After: 2` holds a message in
 * its retry for 2 s, long after the endpoint is removed; a hanging receiver
 * holds an attempt under way for 1.5 s.
 */

/** An endpoint that owes one message: its first attempt was answered with `mode`. */
async function owing(prefix: string, mode: Answer) {
  const streamId = uniqueStream('artifact');
  const name = uniqueName(prefix);
  await register(streamId, name);
  await receiver(name, { mode, retryAfter: '2' });
  await appendWire(streamId);
  const [first] = await until(
    () => received(name),
    (rs) => rs.length >= 1,
  );
  return { streamId, name, stream: streamStub(env, streamId), first };
}

/** Registers `name` again on `streamId` (every Wire), pointing at the receiver's endpoint `moved`. */
async function registerAgain(streamId: string, name: string, moved: string): Promise<void> {
  const again = await streamStub(env, streamId).registerWebhook({
    id: name,
    url: hookUrl(moved),
    types: ['*'],
  });
  if (!again.ok) throw new Error(again.detail);
  await receiver(moved, { secrets: [again.secret] });
}

/** Rows the stream's outbox still holds for webhooks. */
async function queuedWebhooks(streamId: string): Promise<number> {
  const stub = env.STREAMS.get(env.STREAMS.idFromName(streamId));
  return runInDurableObject(stub, (_object, state) => {
    const sql = sqlOf(state.storage.sql);
    return sql<{ n: number }>`SELECT COUNT(*) AS n FROM outbox WHERE via = 'http'`[0]?.n ?? -1;
  });
}

describe('an endpoint removed and registered again', () => {
  it('gets none of the old messages: not delivered, listed, logged or replayable', async () => {
    const { streamId, name, stream, first } = await owing('reused', 'busy');
    const [old] = await stream.webhookMessages(name);
    expect(old).toMatchObject({ id: first?.id, status: 'pending', last_error: 'HTTP 429' });

    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    const moved = uniqueName('reused-new');
    await registerAgain(streamId, name, moved);
    expect(await stream.webhookMessages(name)).toEqual([]);
    expect(await stream.webhookLog(name)).toEqual([]);
    expect(await stream.replayWebhook(name, old?.id ?? '')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
    // The old message's retry was due 2 s after its first attempt: it goes nowhere.
    expect(await watchFor(moved, (r) => r.id === old?.id)).toEqual([]);
    expect(await received(name)).toHaveLength(1);

    // The new endpoint gets its own Wires, signed with its own secret, from attempt 1.
    const fresh = await appendWire(streamId);
    const got = await until(
      () => received(moved),
      (rs) => rs.some(delivered),
    );
    expect(got.map(wireIdOf)).toEqual([fresh]);
    expect(got[0]?.verified).toEqual([0]);
    const log = await until(
      () => stream.webhookLog(name),
      (l) => l.length > 0,
    );
    expect(log).toMatchObject([{ attempt: 1, status: 204, error: null }]);
    expect((await stream.webhookMessages(name)).map((m) => m.status)).toEqual(['delivered']);
  });

  it('does not inherit an attempt that was under way: it is neither logged nor retried there', async () => {
    const { streamId, name, stream } = await owing('midway', 'hang');
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    const moved = uniqueName('midway-new');
    await registerAgain(streamId, name, moved);

    // The hanging attempt times out 1.5 s in; a retry would follow 0.2 s later.
    expect(await watchFor(moved, () => true)).toEqual([]);
    expect(await stream.webhookLog(name)).toEqual([]);
    expect(await stream.webhookMessages(name)).toEqual([]);
    expect(await stream.webhooks()).toMatchObject([
      { id: name, url: hookUrl(moved), disabled_at: null },
    ]);
    expect(await queuedWebhooks(streamId)).toBe(0);
  });
});

describe('removing an endpoint', () => {
  it('dead-letters what it still owed at once and sends it nowhere; its history stays readable', async () => {
    const { streamId, name, stream } = await owing('removed', 'busy');
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });

    const [message] = await stream.webhookMessages(name, 'dead');
    expect(message).toMatchObject({ last_error: 'the endpoint was removed' });
    expect(await stream.webhookLog(name)).toMatchObject([{ attempt: 1, status: 429 }]);
    expect(await queuedWebhooks(streamId)).toBe(0);
    // Its retry was due 2 s after the first attempt.
    expect(await watchFor(name, (r) => r.id === message?.id, 4000, 1)).toEqual([]);
    expect(await stream.replayWebhook(name, message?.id ?? '')).toMatchObject({
      ok: false,
      code: 'not-found',
    });
  });

  it('during an attempt leaves the message dead-lettered, the attempt logged, and no retry', async () => {
    const { streamId, name, stream } = await owing('removed-midway', 'hang');
    expect(await stream.removeWebhook(name)).toEqual({ ok: true });
    const dead = [{ status: 'dead', last_error: 'the endpoint was removed' }];
    expect(await stream.webhookMessages(name)).toMatchObject(dead);

    const log = await until(
      () => stream.webhookLog(name),
      (l) => l.length > 0,
    );
    expect(log).toMatchObject([{ attempt: 1, status: null }]);
    // A retry would follow 0.2 s after the timeout.
    expect(await watchFor(name, () => true, 1500, 1)).toEqual([]);
    expect(await stream.webhookMessages(name)).toMatchObject(dead);
    expect(await queuedWebhooks(streamId)).toBe(0);
  });
});

describe('a retry after the secret was rotated', () => {
  it('is signed with the secrets live when it is sent, so a receiver on the new secret verifies it', async () => {
    const streamId = uniqueStream('artifact');
    const name = uniqueName('rotated-retry');
    await register(streamId, name);
    await receiver(name, { script: ['busy'], retryAfter: '1', mode: 'ok' });
    await appendWire(streamId);
    const [first] = await until(
      () => received(name),
      (rs) => rs.length >= 1,
    );
    const stream = streamStub(env, streamId);
    // No grace: the receiver moves to the new secret at once and knows only it.
    const rotated = await stream.rotateWebhookSecret(name, 0);
    if (!rotated.ok) throw new Error(rotated.detail);
    await receiver(name, { secrets: [rotated.secret] });
    const got = await until(
      () => received(name),
      (rs) => rs.some(delivered),
    );
    const retry = got.find(delivered);
    expect(retry?.id).toBe(first?.id);
    expect(retry?.signatures).toHaveLength(1);
    expect(retry?.verified).toEqual([0]);
  });
});
