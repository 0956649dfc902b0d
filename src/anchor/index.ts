import type { Anchor } from './anchor';
import { type AnchorVars, type HederaConfig, hederaConfig } from './config';
import { HcsAnchor } from './hcs-anchor';

export type { Anchor, ReceiptResult } from './anchor';
export { AnchorError, backdatedNow, chunksOf, nextValidStart } from './anchor';
export { type HederaConfig, hederaConfig, messageLinks } from './config';

/**
 * One HCS client per isolate (it health-checks the node before its first call
 * and keeps its channel), shared by every TopicObject living in the isolate.
 */
const anchors = new Map<string, { config: HederaConfig; anchor: Anchor }>();

export function anchorFor(vars: AnchorVars): { config: HederaConfig; anchor: Anchor } {
  const key = JSON.stringify([
    vars.HEDERA_NETWORK,
    vars.HEDERA_OPERATOR_ID,
    vars.HEDERA_TOPICS,
    vars.HEDERA_LOCAL_URL,
    vars.HEDERA_MIRROR_URL,
  ]);
  let entry = anchors.get(key);
  if (!entry) {
    const config = hederaConfig(vars);
    entry = { config, anchor: new HcsAnchor(config) };
    anchors.set(key, entry);
  }
  return entry;
}
