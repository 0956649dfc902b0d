import { createApp } from './api/app';
import type { Env } from './env';
import { MODULES } from './modules';
import { listenAll } from './topic/listen-all';

export { TicketLedger } from './api/auth/ticket-ledger';
export { RateLimiter } from './api/limits/rate-limiter';
export { McpIdentity } from './api/mcp/identity-object';
export { Rebuilder } from './projection/rebuilder';
export { StreamObject } from './stream/stream-object';
export { TopicDirectory } from './topic/topic-directory';
export { TopicObject } from './topic/topic-object';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron Trigger (wrangler.toml): the HCS listener checks every topic; modules run their own work. */
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(listenAll(env));
    for (const module of MODULES) {
      const run = module.scheduled?.(env, controller.scheduledTime);
      if (run)
        ctx.waitUntil(
          run.catch((error) => console.error(`${module.name}: scheduled work failed`, error)),
        );
    }
  },
} satisfies ExportedHandler<Env>;
