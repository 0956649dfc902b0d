import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { signWire } from '../../src/client';
import { untilAnchored } from './helpers/anchoring';
import { ALL_SCOPES, authHeaders } from './helpers/auth';
import { rebuildWithout, untilQuiet } from './helpers/projection-live';
import { agentWire, postAs, registeredKey } from './helpers/signing';
import { uniqueStream } from './helpers/wires';

/**
 * Issue 31: the D1 read model keeps a Wire's `sig` (migrations/0011), so a
 * reader served from D1 — `GET /v1/wires…` — and a rebuild from HCS get the
 * signature the stream log and the ledger keep. A private Wire keeps it as its
 * agent sent it (salt included) beside its plaintext payload; an unsigned
 * Wire has no `sig` member.
 */
const agent = uniqueStream('agent').replace('agent:t', 'agent:sigd1');
const open = uniqueStream('project');
const vault = uniqueStream('project').replace('project:', 'project:vault-d1-');
const topicOf = (stream: string) => `project.${stream.slice('project:'.length)}`;

async function served(wireId: string, streamId: string): Promise<Record<string, unknown>> {
  const res = await SELF.fetch(
    `https://ws.test/v1/wires/${wireId}?stream_id=${encodeURIComponent(streamId)}`,
    { headers: await authHeaders('human:ops', ALL_SCOPES) },
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { wire: Record<string, unknown> }).wire;
}

async function listed(streamId: string): Promise<Record<string, unknown>[]> {
  const res = await SELF.fetch(
    `https://ws.test/v1/wires?stream_id=${encodeURIComponent(streamId)}`,
    { headers: await authHeaders('human:ops', ALL_SCOPES) },
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { wires: Record<string, unknown>[] }).wires;
}

describe('a Wire’s sig in D1', { timeout: 90_000 }, () => {
  it('is served from D1 as the agent sent it, absent when unsigned, and comes back after a rebuild', async () => {
    const key = await registeredKey(agent);
    const signedPlain = await signWire(agentWire(open, agent, { correlation_id: null }), key, {
      form: 'plain',
    });
    const signedPrivate = await signWire(
      agentWire(vault, agent, { correlation_id: null, payload: { concern: 'in the vault' } }),
      key,
    );
    const unsigned = agentWire(open, 'human:alice', { correlation_id: null });
    expect((await postAs(agent, open, signedPlain)).status).toBe(201);
    expect((await postAs(agent, vault, signedPrivate)).status).toBe(201);
    expect((await postAs('human:alice', open, unsigned)).status).toBe(201);
    await untilAnchored(open, [topicOf(open)], 30_000);
    await untilAnchored(vault, [topicOf(vault)], 30_000);
    await untilQuiet();

    const expectServed = async () => {
      const plain = await served(signedPlain.wire_id, open);
      expect(plain.sig).toEqual(signedPlain.sig);
      const sealed = await served(signedPrivate.wire_id, vault);
      expect(sealed).toMatchObject({ payload: { concern: 'in the vault' } });
      expect(sealed.sig).toEqual(signedPrivate.sig);
      expect((signedPrivate.sig as { salt?: string }).salt).toEqual(expect.any(String));
      const bare = await served(unsigned.wire_id, open);
      expect(bare).not.toHaveProperty('sig');
      const page = await listed(open);
      expect(page.map((w) => [w.wire_id, w.sig])).toEqual([
        [signedPlain.wire_id, signedPlain.sig],
        [unsigned.wire_id, undefined],
      ]);
    };
    await expectServed();

    // D1 forgets these streams: only HCS (the private one sealed) can give them back.
    const lines = await rebuildWithout([open, vault]);
    expect(lines.filter((l) => l.phase === 'retry' || l.phase === 'error')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ phase: 'done' });
    await expectServed();
  });
});
