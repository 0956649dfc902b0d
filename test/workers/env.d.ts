import type { D1Migration } from 'cloudflare:test';
import type { Env as WorkerEnv } from '../../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** The webhook receiver of test/global-setup-webhook-receiver.ts. */
      WEBHOOK_RECEIVER_URL: string;
    }
  }
}
