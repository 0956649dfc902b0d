import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { hederaConfig } from '../../../src/anchor/config';
import { HcsAnchor } from '../../../src/anchor/hcs-anchor';
import worker from '../../../src/index';
import { api, standinUrl } from './anchoring';

/** The HCS listener's side of the tests: the cron, its alerts, and agents posting to HCS directly. */

export interface Alert {
  id: number;
  kind: string;
  hcs_topic_id: string;
  sequence_number: number | null;
  detail: string;
}

export async function alertsFor(topicId: string): Promise<Alert[]> {
  const res = await api('/v1/alerts?limit=1000');
  return ((await res.json()) as { alerts: Alert[] }).alerts.filter(
    (a) => a.hcs_topic_id === topicId,
  );
}

/** The Cron Trigger, exactly as the runtime invokes it. */
export async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** Submits messages to a topic as an agent would, straight to HCS (the HCS-first path). */
export function directSubmitter(topicId: string): (text: string) => Promise<void> {
  const agent = new HcsAnchor(
    hederaConfig({ HEDERA_NETWORK: 'local', HEDERA_LOCAL_URL: standinUrl() }),
  );
  return async (text) => {
    const message = new TextEncoder().encode(text);
    await agent.submit({
      topicId,
      message,
      transactionIds: await agent.transactionIds(message.length),
    });
  };
}
