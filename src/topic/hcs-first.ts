import type { Registry } from '../kernel/registry';
import type { Draft } from '../protocol';

/**
 * `HCS_FIRST`: `on`, any payer's Wires are ingested (their sender unproven);
 * `off`, none; or a JSON map of payer account → sender
 * (`{"0.0.1234":"agent:quinn-07"}`): only those payers, each only as its
 * sender. The payer signed the HCS transaction, so the map makes the sender
 * proven. Anything else refuses all, naming the mistake.
 *
 * Unset, it is `on` on the local network only. On a public network anyone
 * with an account can post to the topics, and every anchored Wire is public
 * on the mirror (whatever a protocol's Wires prove, such as who holds a
 * task): unproven senders could act for anyone, so they are ingested only
 * when asked for.
 */
export type HcsFirstPolicy =
  | { kind: 'open' }
  | { kind: 'off'; why: string }
  | { kind: 'payers'; senders: Map<string, string> };

export function hcsFirstPolicy(value: string | undefined, network = 'local'): HcsFirstPolicy {
  const text = value?.trim() ?? '';
  if (text === '' && network !== 'local') {
    return {
      kind: 'off',
      why: `HCS_FIRST is unset on ${network}, so nothing put on HCS directly is ingested: set a JSON map of payer account to sender, or "on" to accept unproven senders`,
    };
  }
  if (text === '' || text === 'on') return { kind: 'open' };
  if (text === 'off') return { kind: 'off', why: 'HCS-first ingestion is off (HCS_FIRST=off)' };
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch {
    map = null;
  }
  const entries =
    map !== null && typeof map === 'object' && !Array.isArray(map) ? Object.entries(map) : [];
  const valid = entries.every(
    ([payer, sender]) => /^\d+\.\d+\.\d+$/.test(payer) && typeof sender === 'string',
  );
  if (entries.length === 0 || !valid) {
    return {
      kind: 'off',
      why: 'HCS_FIRST is not "on", "off" or a JSON map of payer account to sender ({"0.0.1234":"agent:quinn-07"}), so nothing is ingested',
    };
  }
  return { kind: 'payers', senders: new Map(entries as [string, string][]) };
}

/**
 * What a Wire put on HCS directly may not be, beyond the stream's own rules.
 * Topics have no submit key (agents post to them), so such a Wire proves no
 * identity: its `sender` is only what the message says. What `POST …/wires`
 * grants on the strength of a token is refused here: types the catalogues
 * reserve to coordinator identities and the reserved `system` sender. (Secrets,
 * already public on the ledger, are refused by `draftOf` like every append's.)
 */
export function hcsFirstProblem(
  draft: Draft,
  payer: string,
  registry: Registry,
  policy: HcsFirstPolicy = { kind: 'open' },
): string | null {
  if (policy.kind === 'off') return policy.why;
  if (policy.kind === 'payers') {
    const sender = policy.senders.get(payer);
    if (sender === undefined) return `payer ${payer} is not in HCS_FIRST`;
    if (sender !== draft.sender) {
      return `sender "${draft.sender}" is not "${sender}", the sender HCS_FIRST names for payer ${payer}`;
    }
  }
  if (draft.sender === 'system') return 'sender "system" is reserved for the coordinator itself';
  const spec = registry.typeSpec(draft.type);
  if (spec?.ownerOrAdmin) {
    return `"${draft.type}" needs a token-proven identity, which a Wire put on HCS directly cannot give; post it with POST /v1/streams/{id}/wires`;
  }
  if (spec?.orchestration) {
    return `"${draft.type}" needs a coordinator identity, which a Wire put on HCS directly cannot prove; post it with POST /v1/streams/{id}/wires`;
  }
  return null;
}
