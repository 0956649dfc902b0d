import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { accept, defineKind } from '../../src/kernel/kind';
import { KindRunner } from '../../src/kernel/kind-runner';
import { Outbox } from '../../src/kernel/outbox';
import { buildRegistry } from '../../src/kernel/registry';
import { sqlOf } from '../../src/kernel/sql';
import { webhookSettings } from '../../src/kernel/webhooks/settings';
import { Webhooks } from '../../src/kernel/webhooks/store';
import type { Draft } from '../../src/protocol';
import { WireLog } from '../../src/stream/wire-log';
import { hookUrl, received, receiver, uniqueName, until } from './helpers/webhooks';

/**
 * The way a protocol module sends a webhook: its kind's `react` answers a
 * `WebhookEffect`, and the runner records it through the stream's webhooks
 * in the append's stretch. A kind of a module made up here, run by the
 * kernel's own KindRunner over the Durable Object's storage.
 */
const ringer = uniqueName('ringer');
const bell = defineKind<{ rung: number }, null>({
  name: 'bell',
  version: 1,
  config: () => null,
  decider: {
    initialState: () => ({ rung: 0 }),
    decide: (command) => accept(command),
    evolve: (state) => ({ rung: state.rung + 1 }),
    react: (_before, after, wire) => [
      {
        via: 'http',
        endpoint_id: ringer,
        event_type: 'bell:rung',
        body: { rung: after.rung, wire_id: wire.wire_id },
      },
    ],
  },
});
const registry = buildRegistry([{ name: 'bells', kinds: [bell], types: {} }]);

describe("a kind's webhook effect", () => {
  it('is recorded with the Wire that caused it and delivered, signed, to the endpoint it names', async () => {
    const streamId = `bell:b${Date.now().toString(36)}`;
    const stub = env.STREAMS.get(env.STREAMS.idFromName(streamId));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = sqlOf(state.storage.sql);
      const log = new WireLog(sql);
      const outbox = new Outbox(sql);
      const webhooks = new Webhooks(sql, outbox, webhookSettings(env));
      const created = webhooks.register({ id: ringer, url: hookUrl(ringer) }, Date.now());
      if (!created.ok) throw new Error(created.detail);
      await receiver(ringer, { secrets: [created.secret] });
      const runner = new KindRunner({
        sql,
        log,
        env,
        registry,
        outbox,
        appendLocal: () => {},
        appendTo: () => Promise.reject(new Error('no other streams here')),
        sendWebhook: (effect, now) =>
          webhooks.send(effect.endpoint_id, effect.event_type, effect.body, now),
      });
      const draft = {
        wire: '1.1',
        wire_id: `wire_bell_${Date.now().toString(36)}`,
        stream_id: streamId,
        correlation_id: null,
        causation_id: null,
        type: 'bell.rung',
        sender: 'agent:bell',
        ts: '2026-05-01T16:00:00Z',
        payload: {},
      } as unknown as Draft;
      const now = Date.now();
      expect(runner.decide(draft, 1, now, null)).toEqual([draft]);
      const { wire } = log.append(draft, new Date(now).toISOString());
      runner.applied(wire, now);
      // Recorded in the same stretch, before any delivery ran.
      expect(webhooks.messages(ringer).map((m) => m.status)).toEqual(['pending']);
      expect(outbox.size('http')).toBe(1);

      const got = await until(
        () => received(ringer),
        (rs) => rs.length > 0,
      );
      expect(got).toHaveLength(1);
      expect(got[0]?.verified).toEqual([0]);
      expect(JSON.parse(got[0]?.body ?? '')).toEqual({ rung: 1, wire_id: draft.wire_id });
      const messages = await until(
        async () => webhooks.messages(ringer),
        (ms) => ms[0]?.status === 'delivered',
      );
      expect(messages[0]).toMatchObject({ event_type: 'bell:rung', id: got[0]?.id });
    });
  });
});
