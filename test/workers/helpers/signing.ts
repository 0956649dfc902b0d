import { SELF } from 'cloudflare:test';
import type { Scope } from '../../../src/api/auth/claims';
import { type AgentKey, agentKeyFromJwk, generateAgentKeyJwk, signWire } from '../../../src/client';
import { type AnchoredEnvelope, anchoredFromMirror } from '../../../src/client/signing';
import { standinUrl } from './anchoring';
import { ALL_SCOPES, authHeaders } from './auth';
import { problemOf, wire11 } from './wires';

export const ADMIN = ALL_SCOPES;

/** An agent with signing keys, as the SDK makes them (WebCrypto Ed25519). */

export async function newKey(kid?: string): Promise<AgentKey> {
  return agentKeyFromJwk(await generateAgentKeyJwk(kid));
}

/** A new key, registered by `agent` on its own stream (signed by itself). */
export async function registeredKey(agent: string): Promise<AgentKey> {
  const key = await newKey();
  const registration = agentWire(agent, agent, {
    type: 'agent.key.registered',
    payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
  });
  const res = await postAs(agent, agent, await signWire(registration, key));
  if (res.status !== 201)
    throw new Error(`registering ${key.kid}: ${res.status} ${await res.text()}`);
  return key;
}

/** A Wire from `agent`, dated now (the agent stream refuses its own Wires far from the clock). */
export function agentWire(streamId: string, agent: string, more: Record<string, unknown> = {}) {
  return wire11(streamId, { sender: agent, ts: new Date().toISOString(), ...more });
}

export async function postAs(
  sub: string,
  streamId: string,
  body: unknown,
  scopes: Scope[] = ['append', 'read'],
): Promise<Response> {
  return SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(await authHeaders(sub, scopes)) },
    body: JSON.stringify(body),
  });
}

export async function signedPost(agent: string, streamId: string, key: AgentKey | null, more = {}) {
  const body = agentWire(streamId, agent, { correlation_id: null, ...more });
  return postAs(agent, streamId, key ? await signWire(body, key) : body);
}

/** A refusal's status, type and the members a client acts on. */
export async function refusal(res: Response) {
  const p = await problemOf(res);
  return {
    status: res.status,
    type: p.type,
    reason: p.reason,
    accepted_kids: p.accepted_kids,
    detail: p.detail,
  };
}

/** The anchored envelope of a Wire, read from the stand-in's mirror by its anchor. */
export async function fromMirror(anchor: {
  hcs_topic_id: string;
  hcs_sequence_number: number;
}): Promise<AnchoredEnvelope> {
  const { hcs_topic_id: topic, hcs_sequence_number: seq } = anchor;
  const res = await fetch(
    `${standinUrl()}/api/v1/topics/${topic}/messages?sequencenumber=gt:${seq - 1}&limit=1&order=asc`,
  );
  const [message] = (
    (await res.json()) as {
      messages: {
        message: string;
        consensus_timestamp: string;
        sequence_number: number;
        payer_account_id: string;
      }[];
    }
  ).messages;
  if (message?.sequence_number !== seq) throw new Error(`no message ${seq} on ${topic}`);
  return anchoredFromMirror(message);
}
