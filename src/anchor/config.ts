import * as z from 'zod';
import type { Env } from '../env';

/**
 * Anchoring configuration from Worker vars/secrets:
 *   HEDERA_NETWORK       local (default) | testnet | mainnet | previewnet
 *   HEDERA_OPERATOR_ID   payer account, e.g. 0.0.1234 (secret on public networks)
 *   HEDERA_OPERATOR_KEY  its ed25519 private key, DER hex (secret)
 *   HEDERA_TOPICS        JSON map topic name → topic id, e.g. {"default":"0.0.5001"}
 *   HEDERA_LOCAL_URL     the stand-in network on `local` (default http://127.0.0.1:5551)
 *   HEDERA_MIRROR_URL    overrides the mirror REST base URL
 */
export const HederaNetwork = z.enum(['local', 'testnet', 'mainnet', 'previewnet']);
export type HederaNetwork = z.infer<typeof HederaNetwork>;

const EntityId = z.string().regex(/^\d+\.\d+\.\d+$/, 'must be an entity id like 0.0.1234');
const TopicMap = z.record(z.string().min(1), EntityId);

/** The Worker's variables anchoring reads (documented on `Env`). */
export type AnchorVars = Pick<
  Env,
  | 'HEDERA_NETWORK'
  | 'HEDERA_OPERATOR_ID'
  | 'HEDERA_OPERATOR_KEY'
  | 'HEDERA_TOPICS'
  | 'HEDERA_LOCAL_URL'
  | 'HEDERA_MIRROR_URL'
>;

export interface HederaConfig {
  network: HederaNetwork;
  /** Operator from vars; on `local` it comes from the stand-in instead. */
  operatorId: string | null;
  operatorKey: string | null;
  topics: Record<string, string>;
  localUrl: string;
  mirrorUrl: string;
  /** Topics missing from HEDERA_TOPICS are created on demand (always on local). */
  autoCreateTopics: boolean;
}

const PUBLIC_MIRRORS: Record<Exclude<HederaNetwork, 'local'>, string> = {
  mainnet: 'https://mainnet-public.mirrornode.hedera.com',
  testnet: 'https://testnet.mirrornode.hedera.com',
  previewnet: 'https://previewnet.mirrornode.hedera.com',
};

export const DEFAULT_LOCAL_URL = 'http://127.0.0.1:5551';

/** Reads the configuration; a malformed value is a deployment bug, so it throws. */
export function hederaConfig(vars: AnchorVars): HederaConfig {
  const network = HederaNetwork.parse(vars.HEDERA_NETWORK || 'local');
  const topics = TopicMap.parse(vars.HEDERA_TOPICS ? JSON.parse(vars.HEDERA_TOPICS) : {});
  const localUrl = (vars.HEDERA_LOCAL_URL || DEFAULT_LOCAL_URL).replace(/\/$/, '');
  const mirrorUrl = (
    vars.HEDERA_MIRROR_URL || (network === 'local' ? localUrl : PUBLIC_MIRRORS[network])
  ).replace(/\/$/, '');
  const operatorId = vars.HEDERA_OPERATOR_ID ? EntityId.parse(vars.HEDERA_OPERATOR_ID) : null;
  return {
    network,
    operatorId,
    operatorKey: vars.HEDERA_OPERATOR_KEY || null,
    topics,
    localUrl,
    mirrorUrl,
    autoCreateTopics: network === 'local',
  };
}

/** Public links for a topic message (HashScan exists only for public networks). */
export function messageLinks(
  config: HederaConfig,
  topicId: string,
  sequenceNumber: number,
  consensusTimestamp: string,
) {
  return {
    mirror_url: `${config.mirrorUrl}/api/v1/topics/${topicId}/messages/${sequenceNumber}`,
    // HashScan addresses a transaction by its consensus timestamp.
    hashscan_url:
      config.network === 'local'
        ? null
        : `https://hashscan.io/${config.network}/transaction/${consensusTimestamp}`,
  };
}
