import { describe, expect, it } from 'vitest';
import { signWire } from '../../src/client';
import { readWires, untilAnchored } from './helpers/anchoring';
import { alertsFor, directSubmitter, runCron } from './helpers/listener';
import { agentWire, newKey, postAs, registeredKey } from './helpers/signing';
import { uniqueStream } from './helpers/wires';

/**
 * A keyed agent's Wires put on HCS directly (the HCS-first path) pass the
 * same signature guard as its appends: the listener ingests a signed one and
 * rejects an unsigned one; key changes need a token and are never ingested.
 * A private project's Wire signed in the plain form is rejected there too
 * (the deployment's commitment rule, `private/signature-rule.ts`).
 */
describe('agent-signed Wires put on HCS directly', { timeout: 40_000 }, () => {
  it('ingests a keyed agent’s signed Wire, rejects its unsigned one and any key change', async () => {
    const agent = uniqueStream('agent');
    const project = uniqueStream('project');
    const key = await registeredKey(agent);
    const first = await signWire(agentWire(project, agent, { correlation_id: null }), key);
    expect((await postAs(agent, project, first)).status).toBe(201);
    const [anchored] = await untilAnchored(project, [`project.${project.slice(8)}`]);
    const topicId = anchored?.anchor.hcs_topic_id ?? '';

    const submit = directSubmitter(topicId);
    const unsigned = agentWire(project, agent, { correlation_id: null });
    const signed = await signWire(agentWire(project, agent, { correlation_id: null }), key);
    const other = await newKey();
    const keyChange = await signWire(
      agentWire(agent, agent, {
        correlation_id: project,
        type: 'agent.key.registered',
        payload: { kid: other.kid, alg: 'Ed25519', public_key: other.public_key },
      }),
      key,
    );
    for (const wire of [unsigned, signed, keyChange]) await submit(JSON.stringify(wire));
    await runCron();

    const alerts = (await alertsFor(topicId)).map((a) => [a.kind, a.sequence_number, a.detail]);
    expect(alerts).toEqual([
      ['hcs-first-rejected', 2, expect.stringContaining('must carry sig')],
      ['hcs-first-ingested', 3, expect.any(String)],
      ['hcs-first-rejected', 4, expect.stringContaining('token-proven identity')],
    ]);
    const wires = await readWires(project);
    expect(wires.map((w) => w.wire_id)).toEqual([first.wire_id, signed.wire_id]);
  });

  it('rejects a private project’s Wire signed in the plain form, as the REST path does', async () => {
    // vitest.config.ts makes `project:vault-…` private.
    const agent = uniqueStream('agent').replace('agent:t', 'agent:hfp');
    const vault = uniqueStream('project').replace('project:', 'project:vault-hf-');
    const key = await registeredKey(agent);
    const first = await signWire(agentWire(vault, agent, { correlation_id: null }), key);
    expect((await postAs(agent, vault, first)).status).toBe(201);
    const [anchored] = await untilAnchored(vault, [`project.${vault.slice(8)}`]);
    const topicId = anchored?.anchor.hcs_topic_id ?? '';

    const plain = await signWire(agentWire(vault, agent, { correlation_id: null }), key, {
      form: 'plain',
    });
    await directSubmitter(topicId)(JSON.stringify(plain));
    await runCron();

    const alerts = (await alertsFor(topicId)).map((a) => [a.kind, a.sequence_number, a.detail]);
    expect(alerts).toEqual([
      [
        'hcs-first-rejected',
        2,
        expect.stringMatching(/: sig\.salt: .*private project "vault".*committed form/),
      ],
    ]);
    expect((await readWires(vault)).map((w) => w.wire_id)).toEqual([first.wire_id]);
  });
});
