import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { hederaConfig } from '../../src/anchor/config';
import { HcsAnchor } from '../../src/anchor/hcs-anchor';
import worker from '../../src/index';
import { draftOf } from '../../src/kernel/append';
import { REGISTRY } from '../../src/modules';
import { gsdEventsDialect } from '../../src/protocol/dialects/examples/gsd-events';
import { api, readWires, standinUrl, untilAnchored } from './helpers/anchoring';
import { expectNothingStored, expectProblem } from './helpers/attack';
import { post, uniqueStream, wire11 } from './helpers/wires';

// Assembled at run time so no secret-shaped literal sits in the repo.
const SECRETS: [kind: string, value: string][] = [
  ['an AWS access key id', `${'AKIA'}IOSFODNN7EXAMPLE`],
  ['a GitHub token', `${'ghp'}_${'Z'.repeat(36)}`],
  ['a PEM private key', `-----BEGIN ${'PRIVATE'} KEY-----MC4CAQAwBQYDK2VwBCIEIA==`],
  ['a DER-hex Hedera key', `302e020100300506032b6570${'04220420'}${'a'.repeat(64)}`],
  ['a bearer JWT', `${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiJ4In0.c2ln`],
  ['an npm token', `${'npm'}_${'W'.repeat(36)}`],
];
const FIELDS = ['correlation_id', 'causation_id', 'wire_id'] as const;

const cases = FIELDS.flatMap((field) =>
  SECRETS.map(([kind, value]) => [field, kind, value] as const),
);

describe('secrets in envelope fields never reach the ledger', () => {
  it.each(cases)('refuses %s holding %s with 422 naming the field', async (field, _k, value) => {
    const s = uniqueStream();
    const res = await post(s, wire11(s, { [field]: value }));
    const problem = await expectProblem(res, 422, 'secret-in-payload');
    expect(problem.errors?.map((e) => e.path)).toEqual([field]);
    expect(problem.detail).toContain(field);
    expect(JSON.stringify(problem)).not.toContain(value.slice(4, 30));
    await expectNothingStored(s);
  });

  it('refuses a secret in the sender with the same 422', async () => {
    const s = uniqueStream();
    const res = await post(s, wire11(s, { sender: `agent:${'npm'}_${'Q'.repeat(36)}` }));
    const problem = await expectProblem(res, 422, 'secret-in-payload');
    expect(problem.errors?.map((e) => e.path)).toEqual(['sender']);
    await expectNothingStored(s);
  });

  it('refuses a secret in any member of a foreign dialect, naming its own field', () => {
    const parsed = draftOf(
      {
        type: 'task:started',
        timestamp: '2026-05-01T16:00:00Z',
        agent: 'quinn',
        trace: `${'ghp'}_${'Z'.repeat(36)}`,
      },
      'project:gsd-secret',
      REGISTRY,
      { dialect: gsdEventsDialect() },
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.code).toBe('secret-in-payload');
    expect(parsed.errors?.map((e) => e.path)).toEqual(['trace']);
  });

  it('refuses a Wire put on HCS directly with a secret in correlation_id', async () => {
    const streamId = uniqueStream('project');
    const topic = `project.${streamId.slice('project:'.length)}`;
    expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const anchored = await untilAnchored(streamId, [topic]);
    const topicId = anchored[0]?.anchor.hcs_topic_id ?? '';
    expect(topicId).not.toBe('');
    const agent = new HcsAnchor(
      hederaConfig({ HEDERA_NETWORK: 'local', HEDERA_LOCAL_URL: standinUrl() }),
    );
    const message = new TextEncoder().encode(
      JSON.stringify(wire11(streamId, { correlation_id: `${'AKIA'}IOSFODNN7EXAMPLE` })),
    );
    await agent.submit({
      topicId,
      message,
      transactionIds: await agent.transactionIds(message.length),
    });
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController(), env, ctx);
    await waitOnExecutionContext(ctx);
    const res = await api('/v1/alerts?limit=1000');
    const alerts = (
      (await res.json()) as { alerts: { hcs_topic_id: string; kind: string; detail: string }[] }
    ).alerts.filter((a) => a.hcs_topic_id === topicId);
    expect(alerts.map((a) => a.kind)).toEqual(['hcs-first-rejected']);
    expect(alerts[0]?.detail).toContain('correlation_id looks like an AWS access key id');
    expect(await readWires(streamId)).toHaveLength(1);
  });
});
