import { env } from 'cloudflare:test';
import { signWire } from '../../../src/client';
import { checkSignature, UNKEYED_TTL_MS } from '../../../src/kernel/signatures';
import { REGISTRY } from '../../../src/modules';
import { agentSigners } from '../../../src/modules/coordination/kinds/agent-keys';
import { type Draft, signatureVerifies } from '../../../src/protocol';
import { untilAnchored } from './anchoring';
import { agentWire, newKey, postAs } from './signing';
import { uniqueStream } from './wires';

const RUNS = 50;

async function mean(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) await run();
  return (performance.now() - started) / RUNS;
}

/**
 * What `checkSignature` costs per Wire (ms), measured in the Worker's isolate
 * against real StreamObjects: a sender no directory holds, a keyless agent
 * remembered as such, a keyless agent looked up (the remembered answer
 * lapsed: one RPC to its stream), and a keyed agent (lookup + Ed25519 verify).
 */
export async function guardCosts(keyless: string): Promise<Record<string, number>> {
  const draft = (sender: string) => agentWire(uniqueStream('project'), sender) as Draft;
  const human = draft('human:sig-cost');
  const remembered = draft(keyless);
  await checkSignature(remembered, env, REGISTRY);
  const lapsed = () =>
    checkSignature(remembered, env, REGISTRY, { now: Date.now() + UNKEYED_TTL_MS + 1 });
  const keyed = uniqueStream('agent');
  const key = await newKey();
  const registration = agentWire(keyed, keyed, {
    type: 'agent.key.registered',
    payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
  });
  const registered = await postAs(keyed, keyed, await signWire(registration, key));
  if (registered.status !== 201) throw new Error(`registration: ${registered.status}`);
  // Measured once the registration is anchored, so the agent's object is otherwise idle.
  await untilAnchored(keyed, []);
  const signed = (await signWire(draft(keyed), key)) as Draft;
  const costs = {
    human: await mean(() => checkSignature(human, env, REGISTRY)),
    'keyless agent (remembered)': await mean(() => checkSignature(remembered, env, REGISTRY)),
    'keyless agent (looked up)': await mean(lapsed),
    'signed, keyed agent': await mean(() => checkSignature(signed, env, REGISTRY)),
    'of which key lookup': await mean(() => agentSigners.keysOf(env, keyed)),
    'of which Ed25519 verify': await mean(() =>
      signatureVerifies(signed, signed.sig ?? { value: '' }, key.public_key),
    ),
  };
  const refused = await checkSignature(signed, env, REGISTRY);
  if (refused !== null) throw new Error(`the signed draft was refused: ${refused.detail}`);
  return costs;
}
