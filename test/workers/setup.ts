import { applyD1Migrations, env } from 'cloudflare:test';

// Applied exactly as production applies them (wrangler's migration format).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
