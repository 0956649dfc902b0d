import { createApp } from './api/app';
import type { Env } from './env';
import { listenAll } from './topic/listen-all';

export { TicketLedger } from './api/auth/ticket-ledger';
export { RateLimiter } from './api/limits/rate-limiter';
export { McpIdentity } from './mcp/identity-object';
export { Rebuilder } from './projection/rebuilder';
export { StreamObject } from './stream/stream-object';
export { TopicDirectory } from './topic/topic-directory';
export { TopicObject } from './topic/topic-object';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger (wrangler.toml): the HCS listener checks every topic. */
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(listenAll(env));
  },
} satisfies ExportedHandler<Env>;
