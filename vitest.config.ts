import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * For the Node-side projects: modules that import `cloudflare:workers` (the
 * Durable Object classes) get a stand-in base class.
 */
const SHIMMED_WORKERS = {
  alias: {
    'cloudflare:workers': path.join(import.meta.dirname, 'test/support/cloudflare-workers-shim.ts'),
  } as Record<string, string>,
};

/** src/anchor/sdk-omitted: see `[alias]` in wrangler.toml. */
const omittedFromSdk = (name: string, ext = 'ts') =>
  path.join(import.meta.dirname, `src/anchor/sdk-omitted/${name}.${ext}`);

/**
 * Workers test files that must not share the machine: network-wide faults on
 * the shared Hedera stand-in (the mirror down for everyone), 100 agents racing,
 * and fault timings measured in seconds. The rest run two files at a time.
 */
const SERIAL_WORKERS_FILES = [
  'test/workers/projection-rebuild-resilience.test.ts',
  'test/workers/coordination-race.test.ts',
  'test/workers/anchor-faults.test.ts',
];

/**
 * Workers test files that need deployment vars no other file may see: vars
 * the Durable Objects read, which a request's env (`app.request(…, vars)`)
 * cannot stand in for. They run in a project of their own (`workers-vars`)
 * with these vars over the common ones. WIRE_MAX_BYTES above what a log entry
 * holds: log mode is unavailable, so every topic anchors in envelope mode.
 */
const OWN_VARS_WORKERS_FILES = [
  'test/workers/log-mode-wire-size.test.ts',
  'test/workers/private-kek-mismatch.test.ts',
];
const OWN_VARS = {
  WIRE_MAX_BYTES: '200000',
  // A second private project, "wrongkey": test/workers/private-kek-mismatch.test.ts
  // gives it a data key PAYLOAD_KEK cannot open.
  PRIVATE_PROJECTS:
    '{"vault":{"streams":["project:vault-"],"correlations":["vault-"]},"wrongkey":{"streams":["project:wrongkey-"]}}',
};

type WorkersFiles = 'shared' | 'serial' | 'own-vars';

/**
 * The Worker's own tests in workerd (vitest-pool-workers). Two files at a time,
 * except SERIAL_WORKERS_FILES, which run alone afterwards (`workers-serial`),
 * and OWN_VARS_WORKERS_FILES, under their own vars (`workers-vars`).
 */
const workersProject = (
  name: string,
  files: WorkersFiles,
  migrations: Awaited<ReturnType<typeof readD1Migrations>>,
) => ({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: migrations,
          // The stand-in Hedera network started by the global setup.
          HEDERA_LOCAL_URL: inject('standinUrl'),
          // A small flow-control window so tests reach it quickly.
          WS_MAX_BUFFERED_FRAMES: '32',
          // Test-only secrets (never used outside tests).
          TOKEN_SECRET: 'test-token-secret-not-for-production-0123456789',
          ADMIN_TOKEN: 'test-admin-token-not-for-production',
          // Signs log-mode checkpoints (issue 31); test/workers/anchor-log-mode.test.ts
          // puts its topics in log mode with the TopicObject's `setAnchoring`.
          LOG_SIGNER_KEY:
            'PRIVATE+KEY+wirestream.test+c07c376f+AUVctE9S48GrbgDQKiQNZuYpwZ63ofDEyZzxSqLs0Frr',
          // Private payloads (test/workers/private-payloads.test.ts): the "vault"
          // project, and two test-only KEKs mid-rotation (b current, a still readable).
          PRIVATE_PROJECTS: '{"vault":{"streams":["project:vault-"],"correlations":["vault-"]}}',
          PAYLOAD_KEK:
            'test-kek-b:2tsPjRfQHA9ds+rT76tj7Jdik9boPYVIeCQN/JP5iY4=,test-kek-a:6GgIBn4OtmB2NoN5nIYbFK9P+FCQ6Ejl9hM07BxQ7Qk=',
          // Off for suites that post fast from few senders (and spares them a
          // Durable Object hop per append); security-limits sets its own.
          RATE_PER_SECOND: '0',
          // Gives a rebuild up after 1 + 2 + 4 s of failures, not a minute.
          REBUILD_RETRIES: '3',
          // A key registration answers after this long (2 s in production): every suite registers keys.
          KEYLESS_CACHE_MS: '300',
          // Webhooks (outbox-*.test.ts): the receiver of the global setup on
          // plain http://127.0.0.1, seconds-long retries, a short timeout.
          WEBHOOK_RECEIVER_URL: inject('webhookReceiverUrl'),
          WEBHOOK_ALLOW_LOCAL_HTTP: 'true',
          WEBHOOK_RETRY_SCHEDULE: '0.2,0.4,0.8,1,1,2',
          WEBHOOK_TIMEOUT_MS: '1500',
          ...(files === 'own-vars' ? OWN_VARS : {}),
        },
        // Nothing in tests may wait on the network.
        cf: false,
        // The MCP service (wrangler.toml): the MCP Worker as a deploy bundles it
        // (test/global-setup-mcp-worker.ts builds it before the tests start).
        // The STATIC service (wrangler.toml): static/wrangler.toml's assets, which
        // the build writes to .local/static (the dashboard, /v1/openapi.json, /docs).
        workers: [
          {
            name: 'wirestream-mcp',
            modules: true,
            scriptPath: path.join(import.meta.dirname, '.local/mcp/worker.js'),
            compatibilityDate: '2026-04-20',
            compatibilityFlags: ['nodejs_compat'],
          },
          {
            name: 'wirestream-static',
            modules: true,
            script: 'export default {};',
            compatibilityDate: '2026-04-20',
            assets: {
              directory: path.join(import.meta.dirname, '.local/static'),
              routerConfig: { has_user_worker: false },
              assetConfig: { html_handling: 'none', not_found_handling: 'none' },
            },
          },
        ],
      },
    })),
  ],
  resolve: {
    // Same alias as wrangler.toml: the SDK's gRPC-web build.
    alias: {
      '@hashgraph/sdk': path.join(
        import.meta.dirname,
        'node_modules/@hashgraph/sdk/lib/browser.js',
      ),
      long: path.join(import.meta.dirname, 'node_modules/long/umd/index.js'),
      // Same as wrangler.toml: SDK code the Worker never reaches.
      '@ethersproject/abi': omittedFromSdk('ethers-abi'),
      asn1js: omittedFromSdk('asn1js'),
      'forge-light/lib/pem.js': omittedFromSdk('forge-pem'),
      '@hiero-ledger/cryptography': omittedFromSdk('cryptography', 'js'),
      pino: omittedFromSdk('pino'),
    } as Record<string, string>,
  },
  test: {
    name,
    include: {
      shared: ['test/workers/**/*.test.ts'],
      serial: SERIAL_WORKERS_FILES,
      'own-vars': OWN_VARS_WORKERS_FILES,
    }[files],
    exclude: files === 'shared' ? [...SERIAL_WORKERS_FILES, ...OWN_VARS_WORKERS_FILES] : [],
    fileParallelism: files !== 'serial',
    maxWorkers: files === 'serial' ? 1 : 2,
    testTimeout: 30_000,
    globalSetup: [
      'test/global-setup-mcp-worker.ts',
      'test/global-setup-standin.ts',
      'test/global-setup-webhook-receiver.ts',
    ],
    setupFiles: ['test/workers/setup.ts'],
  },
});

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'migrations'));
  return {
    test: {
      projects: [
        workersProject('workers', 'shared', migrations),
        workersProject('workers-serial', 'serial', migrations),
        workersProject('workers-vars', 'own-vars', migrations),
        {
          // Node-side tests that load the app's schemas (OpenAPI, problem types)
          // reach Durable Object classes: give them a stand-in base class.
          resolve: SHIMMED_WORKERS,
          test: {
            name: 'node',
            include: ['test/node/**/*.test.ts'],
            // Several files start their own wrangler dev: one at a time on 2 cores.
            fileParallelism: false,
            testTimeout: 60_000,
            globalSetup: ['test/global-setup-standin.ts'],
            environment: 'node',
          },
        },
        {
          // The dashboard in Debian's chromium (playwright-core) against wrangler dev.
          // The global setup finds Chromium, or installs Debian's when it may.
          // Tests that name the registry's read models load the modules: same shim.
          resolve: SHIMMED_WORKERS,
          test: {
            name: 'browser',
            include: ['test/browser/**/*.test.ts'],
            environment: 'node',
            globalSetup: ['test/global-setup-chromium.ts'],
          },
        },
      ],
    },
  };
});
