import type { TicketLedger } from './api/auth/ticket-ledger';
import type { RateLimiter } from './api/limits/rate-limiter';
import type { McpIdentity } from './api/mcp/identity-object';
import type McpWorker from './mcp/worker';
import type { Rebuilder } from './projection/rebuilder';
import type { StreamObject } from './stream/stream-object';
import type { TopicDirectory } from './topic/topic-directory';
import type { TopicObject } from './topic/topic-object';

/** Bindings and vars of the Worker (see wrangler.toml). */
export interface Env {
  STREAMS: DurableObjectNamespace<StreamObject>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  TICKETS: DurableObjectNamespace<TicketLedger>;
  TOPICS: DurableObjectNamespace<TopicObject>;
  TOPIC_DIRECTORY: DurableObjectNamespace<TopicDirectory>;
  REBUILDER: DurableObjectNamespace<Rebuilder>;
  DB: D1Database;
  /** MCP sessions (client declared at initialize) and the HAID registry (src/api/mcp/). */
  MCP_IDENTITY: DurableObjectNamespace<McpIdentity>;
  /** The MCP Worker (mcp/wrangler.toml, src/mcp/): serves `/mcp` over Workers RPC. */
  MCP: Service<McpWorker>;
  /** Host names `/mcp` answers besides localhost, comma-separated (DNS-rebinding protection). */
  MCP_ALLOWED_HOSTS?: string;
  /** Idle seconds after which a 2025-era MCP session expires (default 1800); then 404. */
  MCP_SESSION_IDLE_SECONDS?: string;
  /** Runtime v1's artifact content (src/modules/runtime/), keyed by `sha256-<hex>`. */
  ARTIFACTS: R2Bucket;
  /** The wirestream-static Worker (static/wrangler.toml): dashboard, OpenAPI document, /docs. */
  STATIC: Fetcher;
  /** Largest artifact accepted, in bytes (default 1048576). */
  ARTIFACT_MAX_BYTES?: string;
  /** Largest accepted envelope in bytes (default 8192; `wireMaxBytes`). */
  WIRE_MAX_BYTES?: string;
  /** Wires in flight per WebSocket subscriber before it must ack. */
  WS_MAX_BUFFERED_FRAMES?: string;
  /** Most milliseconds between two fan-out flushes with many subscribers (default 8; 0: off). */
  WS_FLUSH_GAP_MS?: string;
  /** Secret that signs bearer tokens (HS256). */
  TOKEN_SECRET?: string;
  /** Bootstrap secret that may issue tokens (`POST /v1/tokens`). */
  ADMIN_TOKEN?: string;
  /** Comma-separated browser origins allowed by CORS (none when empty). */
  CORS_ORIGINS?: string;
  /** Live WebSocket subscribers allowed per stream. */
  WS_MAX_SUBSCRIBERS?: string;
  /** Wires per second a sender may append (token bucket refill rate). */
  RATE_PER_SECOND?: string;
  /** Burst a sender may append before being limited (token bucket size). */
  RATE_BURST?: string;
  /** Whose Wires put on a topic directly are ingested: `on` (default), `off`, or a JSON map payer → sender. */
  HCS_FIRST?: string;
  /** Longest lease a claim or heartbeat can get, in seconds (default 3600). */
  LEASE_MAX_SECONDS?: string;
  /** An agent silent this long is stale, in seconds (default 120). */
  AGENT_STALE_SECONDS?: string;
  /** An unconfirmed capacity reservation is returned after this many seconds (default 30). */
  RESERVATION_TIMEOUT_SECONDS?: string;
  /** Times a failing rebuild step is retried before the rebuild gives up (default 6). */
  REBUILD_RETRIES?: string;
  /**
   * Milliseconds an isolate remembers that an agent has no signing key (default 2000; 0: look
   * its keys up on every append); a key registration answers only after this long.
   */
  KEYLESS_CACHE_MS?: string;
  /** How topics anchor (issue 31): `envelope` (default, one HCS message per Wire) or `log`. */
  ANCHOR_MODE?: string;
  /** Log mode: Wires per checkpoint at most (default 100). */
  LOG_CHECKPOINT_EVERY?: string;
  /** Log mode: longest a Wire waits for its checkpoint to be made, in ms (default 500). */
  LOG_CHECKPOINT_MS?: string;
  /** Log mode: the C2SP signer key of the deployment's log (secret), `PRIVATE+KEY+<name>+<id>+<key>`. */
  LOG_SIGNER_KEY?: string;
  /** Log mode: verifier keys of earlier log keys (`<name>+<id>+<key>`, comma- or space-separated; README, Rotating the log key). */
  LOG_VERIFIER_KEYS?: string;
  /** Log mode: the R2 bucket its topics' logs are archived in, as C2SP tlog-tiles (src/topic/log-archive.ts). */
  LOG_ARCHIVE?: R2Bucket;
  /** Private payloads (src/private/): JSON project → {streams, correlations} prefixes. README, Private payloads. */
  PRIVATE_PROJECTS?: string;
  /** Private payloads: key-encryption keys (secret), `<kid>:<base64 32 bytes>`, comma-separated, current first. */
  PAYLOAD_KEK?: string;
  /** Anchoring network: local (default) | testnet | mainnet | previewnet. */
  HEDERA_NETWORK?: string;
  /** Payer account of HCS submissions (secret on public networks). */
  HEDERA_OPERATOR_ID?: string;
  /** Its private key, DER hex (secret). */
  HEDERA_OPERATOR_KEY?: string;
  /** JSON map of topic name → topic id, e.g. {"default":"0.0.5001"}. */
  HEDERA_TOPICS?: string;
  /** The local stand-in network (default http://127.0.0.1:5551). */
  HEDERA_LOCAL_URL?: string;
  /** Overrides the mirror node REST base URL. */
  HEDERA_MIRROR_URL?: string;
  /** Seconds before each webhook retry, comma-separated (kernel/webhooks/settings.ts). */
  WEBHOOK_RETRY_SCHEDULE?: string;
  /** One webhook attempt's time limit in ms (default 15000). */
  WEBHOOK_TIMEOUT_MS?: string;
  /** `true`: webhook endpoints may be plain http://127.0.0.1 or localhost (development). */
  WEBHOOK_ALLOW_LOCAL_HTTP?: string;
}

/** The largest envelope (request body) an append takes, in bytes: `WIRE_MAX_BYTES`, else 8192. */
export function wireMaxBytes(env: Pick<Env, 'WIRE_MAX_BYTES'>): number {
  return intVar(env.WIRE_MAX_BYTES, 8192);
}

/** A whole-number var of at least `min` (1 unless said), else `fallback` (unset, blank, malformed). */
export function intVar(value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= min ? n : fallback;
}
