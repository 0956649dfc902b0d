import * as z from 'zod';

/**
 * Runtime v1's payloads (seed 003, FR-2): typed and short. Large things
 * travel as references — artifacts (`sha256-<hex>`, content in R2) and memory
 * entries (their messageId) — so a payload stays within its budget
 * (`PAYLOAD_BUDGETS`, checked by test/workers/runtime-budget.test.ts).
 * Every schema accepts `$envelope`: where the dialect keeps the envelope's
 * other members (`channelId`, `extensions`, unknown fields).
 */

const Envelope = { $envelope: z.record(z.string(), z.json()).optional() };
const Short = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Id = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/,
    'must be 1-100 characters: letters, digits, . _ ~ - (starting with a letter or digit)',
  );
const Count = z.int().min(0).max(100_000_000);

/** An artifact reference: `sha256-` and the content's SHA-256 in lowercase hex. */
export const ArtifactRef = z
  .string()
  .regex(/^sha256-[0-9a-f]{64}$/, 'an artifact reference is "sha256-" + 64 lowercase hex');
/** A memory reference: the messageId of its `memory.saved`. */
export const MemoryRef = Id;
export const TokenUsage = z.strictObject({ input: Count, output: Count });
export type TokenUsage = z.infer<typeof TokenUsage>;

const Scalar = z.union([z.string().max(200), z.number(), z.boolean()]);
const Metadata = z
  .record(z.string().max(64), Scalar)
  .refine((m) => Object.keys(m).length <= 20, 'at most 20 metadata members');

export const WORKER_MODES = ['fire_and_forget', 'interactive'] as const;
export const WorkerMode = z.enum(WORKER_MODES, {
  error: 'mode must be "fire_and_forget" or "interactive"',
});
const Toolset = z.array(Short(64).min(1)).min(1, 'declare at least one tool').max(32);

/** A rule's action, or the policy's default. */
export const RouteAction = z.discriminatedUnion(
  'action',
  [
    z.strictObject({ action: z.literal('respond') }),
    z.strictObject({ action: z.literal('spawn_branch'), goal: Short(500).optional() }),
    z.strictObject({
      action: z.literal('spawn_worker'),
      toolset: Toolset,
      mode: WorkerMode,
      timeoutSeconds: z.int().min(1).max(86_400).optional(),
    }),
    z.strictObject({ action: z.literal('route_worker'), workerId: Id }),
  ],
  { error: 'action must be respond, spawn_branch, spawn_worker or route_worker' },
);
export type RouteAction = z.infer<typeof RouteAction>;

/** What a rule matches: every condition given must hold (none: always). */
export const RuleMatch = z.strictObject({
  /** The text contains one of these (case-insensitive). */
  textIncludes: z.array(Short(200).min(1)).min(1).max(20).optional(),
  /** The text starts with this (case-insensitive). */
  textStartsWith: Short(200).min(1).optional(),
  /** These metadata members have exactly these values. */
  metadata: Metadata.optional(),
  /** The message's role. */
  role: Short(32).optional(),
});
export type RuleMatch = z.infer<typeof RuleMatch>;

export const Rule = z.strictObject({ id: Id, when: RuleMatch, route: RouteAction });
export type Rule = z.infer<typeof Rule>;

/** A channel's routing policy: rules in order, the first that matches wins; else `default`. */
export const RoutePolicy = z.strictObject({
  rules: z.array(Rule).max(50, 'at most 50 rules').default([]),
  default: RouteAction,
});
export type RoutePolicy = z.infer<typeof RoutePolicy>;

const WorkerReport = z.strictObject({
  summary: Short(500),
  outcome: z.enum(['success', 'partial', 'no_op']).optional(),
  data: Metadata.optional(),
});

/** A worker's task (FR-5): its declared toolset, mode, and how long it may stay silent. */
export const WorkerTaskSpec = z.object({
  ...Envelope,
  goal: Short(500),
  toolset: Toolset,
  mode: WorkerMode,
  timeoutSeconds: z.int().min(1).max(86_400).default(300),
  inputRefs: z
    .array(z.union([ArtifactRef, MemoryRef]))
    .max(20)
    .optional(),
  /** Set on summarize jobs the compactor schedules. */
  job: z
    .strictObject({
      kind: z.literal('summarize'),
      level: z.enum(['soft', 'aggressive', 'emergency']),
      fromSeq: z.int().min(1),
      toSeq: z.int().min(1),
    })
    .optional(),
});
export type WorkerTaskSpec = z.infer<typeof WorkerTaskSpec>;

export const LEVELS = ['soft', 'aggressive', 'emergency'] as const;
export type Level = (typeof LEVELS)[number];

export const PAYLOADS = {
  'channel.opened': z.object({
    ...Envelope,
    policy: RoutePolicy,
    contextBudget: z.int().min(1).max(10_000_000),
    title: Short(200).optional(),
  }),
  'channel.message.received': z.object({
    ...Envelope,
    text: Short(4000),
    role: Short(32).default('user'),
    metadata: Metadata.optional(),
    /** Tokens of this message if the sender counted them; else estimated (⌈UTF-8 bytes / 4⌉). */
    tokens: Count.optional(),
  }),
  'channel.route.decided': z.object({
    ...Envelope,
    messageId: z.string(),
    rule: z.string(),
    /** The position of the rule that fired in the policy's `rules`; absent for the default and an explicit route. */
    ruleIndex: z.int().min(0).optional(),
    action: z.enum(['respond', 'spawn_branch', 'spawn_worker', 'route_worker']),
    branchId: Id.optional(),
    workerId: Id.optional(),
  }),
  'branch.spawned': z.object({
    ...Envelope,
    fromMessageId: z.string().optional(),
    goal: Short(500),
  }),
  'branch.conclusion': z.strictObject({
    ...Envelope,
    conclusion: Short(1000),
    artifactRefs: z.array(ArtifactRef).max(20),
    memoryRefs: z.array(MemoryRef).max(20),
    tokenUsage: TokenUsage,
  }),
  'worker.spawned': WorkerTaskSpec,
  'worker.progress': z.object({
    ...Envelope,
    status: z.enum(['running', 'waiting'], { error: 'status must be running or waiting' }),
    note: Short(280).optional(),
    percent: z.number().min(0).max(100).optional(),
    tokenUsage: TokenUsage.optional(),
  }),
  'worker.completed': z.object({
    ...Envelope,
    report: WorkerReport,
    artifactRefs: z.array(ArtifactRef).max(20).default([]),
    tokenUsage: TokenUsage.optional(),
  }),
  'worker.failed': z.object({
    ...Envelope,
    reason: z.enum(['error', 'timeout', 'cancelled']),
    message: Short(500),
    tokenUsage: TokenUsage.optional(),
  }),
  'compactor.threshold.hit': z.object({
    ...Envelope,
    level: z.enum(LEVELS),
    threshold: z.number(),
    utilization: z.number(),
    liveTokens: Count,
    contextBudget: Count,
    fromSeq: z.int().min(1),
    toSeq: z.int().min(1),
    jobWorkerId: Id,
  }),
  'compactor.summary.applied': z.object({
    ...Envelope,
    fromSeq: z.int().min(1),
    toSeq: z.int().min(1),
    summary: Short(2000),
    summaryTokens: Count.optional(),
    summaryRef: ArtifactRef.optional(),
  }),
  'visor.bulletin.generated': z.object({
    ...Envelope,
    bulletinId: Id,
    digest: Short(2000),
    window: z.strictObject({ from: z.string(), to: z.string() }),
    counts: z.strictObject({
      completed: Count,
      failed: Count,
      concluded: Count,
      activeWorkers: Count,
      activeChannels: Count,
    }),
    tokens: Count,
  }),
  'memory.saved': z.object({
    ...Envelope,
    text: Short(2000).min(1),
    tags: z.array(Short(32)).max(10).optional(),
  }),
  'artifact.stored': z.object({
    ...Envelope,
    artifactId: ArtifactRef,
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: Count,
    contentType: Short(200),
    name: Short(200).optional(),
  }),
} as const;

export type RuntimeMessageType = keyof typeof PAYLOADS;

/** The eleven message types of FR-2 (the rest are this module's additive types). */
export const V1_MESSAGE_TYPES = [
  'channel.message.received',
  'channel.route.decided',
  'branch.spawned',
  'branch.conclusion',
  'worker.spawned',
  'worker.progress',
  'worker.completed',
  'worker.failed',
  'compactor.threshold.hit',
  'compactor.summary.applied',
  'visor.bulletin.generated',
] as const satisfies readonly RuntimeMessageType[];

/**
 * The documented payload budget per message type, in bytes of the payload's
 * JSON (the `$envelope` members included): the average over a run and the
 * largest single one. Tokens ≈ bytes / 4.
 */
export const PAYLOAD_BUDGETS: Record<RuntimeMessageType, { avg: number; max: number }> = {
  'channel.opened': { avg: 1500, max: 6000 },
  'channel.message.received': { avg: 600, max: 4600 },
  'channel.route.decided': { avg: 250, max: 400 },
  'branch.spawned': { avg: 300, max: 800 },
  'branch.conclusion': { avg: 700, max: 3500 },
  'worker.spawned': { avg: 500, max: 1500 },
  'worker.progress': { avg: 250, max: 600 },
  'worker.completed': { avg: 600, max: 3500 },
  'worker.failed': { avg: 300, max: 800 },
  'compactor.threshold.hit': { avg: 300, max: 400 },
  'compactor.summary.applied': { avg: 800, max: 2300 },
  'visor.bulletin.generated': { avg: 600, max: 2500 },
  'memory.saved': { avg: 500, max: 2500 },
  'artifact.stored': { avg: 400, max: 700 },
};

/** ⌈UTF-8 bytes / 4⌉: the estimate used where nobody reported a count. */
export function estimateTokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).length / 4);
}

/** Byte size of a payload as stored (its JSON, `$envelope` included). */
export function payloadBytes(payload: unknown): number {
  return new TextEncoder().encode(JSON.stringify(payload)).length;
}

/**
 * Where measured payloads break `PAYLOAD_BUDGETS`: per message type, the
 * average and the largest against the documented figures. [] when within.
 */
export function budgetViolations(
  samples: readonly { messageType: string; bytes: number }[],
): string[] {
  const byType = new Map<string, number[]>();
  for (const s of samples)
    byType.set(s.messageType, [...(byType.get(s.messageType) ?? []), s.bytes]);
  const out: string[] = [];
  for (const [type, sizes] of byType) {
    const budget = PAYLOAD_BUDGETS[type as RuntimeMessageType];
    if (!budget) {
      out.push(`${type}: no documented budget`);
      continue;
    }
    const avg = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    const max = Math.max(...sizes);
    if (avg > budget.avg) out.push(`${type}: average ${avg.toFixed(0)} B > budget ${budget.avg} B`);
    if (max > budget.max) out.push(`${type}: largest ${max} B > budget ${budget.max} B`);
  }
  return out;
}
