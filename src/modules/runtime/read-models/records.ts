import { isoOf, type Reducer, text } from '../../../projection/reducer';
import type { Wire } from '../../../protocol';
import { canonicalJson } from '../../../protocol/canonical-json';
import { envelopeMembers, memberOf, messageTypeOf } from '../envelope';
import { estimateTokens, type TokenUsage } from '../payloads';

/**
 * The runtime's one-event streams as rows: `runtime_artifacts`
 * (`artifact:<id>`), `runtime_memory` (`memory:<id>`, indexed by FTS5 through
 * a trigger in migrations/0009), `runtime_memory_bulletins` (`bulletin:<id>`).
 */

/** An `evolve` that folds only messages of one type into the row (the others leave it). */
function onlyOn<Row>(
  type: string,
  fold: (row: Row, payload: Wire['payload'], wire: Wire) => Row,
): (row: Row, wire: Wire) => Row {
  return (row, wire) => (messageTypeOf(wire.type) === type ? fold(row, wire.payload, wire) : row);
}

export interface ArtifactRow {
  [column: string]: string | number | null;
  stream_id: string;
  artifact_id: string;
  sha256: string;
  size: number;
  content_type: string;
  name: string | null;
  channel_id: string | null;
  uploaded_by: string;
  stored_at: string;
  reducer_version: number;
  last_seq: number;
}

export const runtimeArtifacts: Reducer<ArtifactRow> = {
  model: 'runtime_artifacts',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'artifact_id',
    'sha256',
    'size',
    'content_type',
    'name',
    'channel_id',
    'uploaded_by',
    'stored_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['artifact'],
  initial: (first) => ({
    stream_id: first.stream_id,
    artifact_id: first.stream_id.slice('artifact:'.length),
    sha256: '',
    size: 0,
    content_type: 'application/octet-stream',
    name: null,
    channel_id: null,
    uploaded_by: first.sender,
    stored_at: isoOf(first.ts),
    reducer_version: 0,
    last_seq: 0,
  }),
  evolve: onlyOn('artifact.stored', (row, p, wire) => {
    return {
      ...row,
      sha256: text(p, 'sha256') ?? row.sha256,
      size: typeof p.size === 'number' ? p.size : row.size,
      content_type: text(p, 'contentType') ?? row.content_type,
      name: text(p, 'name'),
      channel_id: memberOf(p, 'channelId') ?? null,
      uploaded_by: wire.sender,
      stored_at: isoOf(wire.ts),
    };
  }),
};

export interface MemoryRow {
  [column: string]: string | number | null;
  stream_id: string;
  memory_id: string;
  text: string;
  tags: string;
  branch_id: string | null;
  channel_id: string | null;
  saved_by: string;
  saved_at: string;
  reducer_version: number;
  last_seq: number;
}

export const runtimeMemory: Reducer<MemoryRow> = {
  model: 'runtime_memory',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'memory_id',
    'text',
    'tags',
    'branch_id',
    'channel_id',
    'saved_by',
    'saved_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['memory'],
  initial: (first) => ({
    stream_id: first.stream_id,
    memory_id: first.stream_id.slice('memory:'.length),
    text: '',
    tags: '[]',
    branch_id: null,
    channel_id: null,
    saved_by: first.sender,
    saved_at: isoOf(first.ts),
    reducer_version: 0,
    last_seq: 0,
  }),
  evolve: onlyOn('memory.saved', (row, p, wire) => {
    const tags = Array.isArray(p.tags) ? p.tags : [];
    return {
      ...row,
      text: text(p, 'text') ?? '',
      tags: canonicalJson(tags),
      branch_id: memberOf(p, 'branchId') ?? null,
      channel_id: memberOf(p, 'channelId') ?? null,
      saved_by: wire.sender,
      saved_at: isoOf(wire.ts),
    };
  }),
};

export interface BulletinRow {
  [column: string]: string | number | null;
  stream_id: string;
  bulletin_id: string;
  digest: string;
  window_from: string;
  window_to: string;
  /** JSON: completed, failed, concluded, activeWorkers, activeChannels. */
  counts: string;
  tokens: number;
  generated_at: string;
  reducer_version: number;
  last_seq: number;
}

export const runtimeBulletins: Reducer<BulletinRow> = {
  model: 'runtime_memory_bulletins',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'bulletin_id',
    'digest',
    'window_from',
    'window_to',
    'counts',
    'tokens',
    'generated_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['bulletin'],
  initial: (first) => ({
    stream_id: first.stream_id,
    bulletin_id: first.stream_id.slice('bulletin:'.length),
    digest: '',
    window_from: '',
    window_to: '',
    counts: '{}',
    tokens: 0,
    generated_at: isoOf(first.ts),
    reducer_version: 0,
    last_seq: 0,
  }),
  evolve: onlyOn('visor.bulletin.generated', (row, p, wire) => {
    const window = (p.window ?? {}) as { from?: string; to?: string };
    return {
      ...row,
      digest: text(p, 'digest') ?? '',
      window_from: window.from ?? '',
      window_to: window.to ?? '',
      counts: canonicalJson(p.counts ?? {}),
      tokens: typeof p.tokens === 'number' ? p.tokens : 0,
      generated_at: isoOf(wire.ts),
    };
  }),
};

export interface TokenUsageRow {
  [column: string]: string | number | null;
  stream_id: string;
  kind: string;
  channel_id: string | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reports: number;
  updated_at: string;
  reducer_version: number;
  last_seq: number;
}

/** Tokens a stream's own events report (workers, branches) or that its messages carry (channels). */
function usageOf(wire: Wire): TokenUsage | null {
  if (wire.sender === 'system') return null; // copies and verdicts: counted where they began
  const type = messageTypeOf(wire.type);
  if (type === 'channel.message.received') {
    const tokens = typeof wire.payload.tokens === 'number' ? wire.payload.tokens : null;
    return { input: tokens ?? estimateTokens(text(wire.payload, 'text') ?? ''), output: 0 };
  }
  const usage = wire.payload.tokenUsage as TokenUsage | undefined;
  return usage && typeof usage.input === 'number' && typeof usage.output === 'number'
    ? usage
    : null;
}

export const runtimeTokenUsage: Reducer<TokenUsageRow> = {
  model: 'runtime_token_usage',
  version: 1,
  key: 'stream_id',
  columns: [
    'stream_id',
    'kind',
    'channel_id',
    'input_tokens',
    'output_tokens',
    'total_tokens',
    'reports',
    'updated_at',
    'reducer_version',
    'last_seq',
  ],
  kinds: ['channel', 'worker', 'branch'],
  initial: (first) => ({
    stream_id: first.stream_id,
    kind: first.stream_id.slice(0, first.stream_id.indexOf(':')),
    channel_id: null,
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    reports: 0,
    updated_at: isoOf(first.ts),
    reducer_version: 0,
    last_seq: 0,
  }),
  evolve(row, wire) {
    const channel =
      row.channel_id ?? (envelopeMembers(wire.payload).channelId as string | undefined) ?? null;
    const usage = usageOf(wire);
    if (!usage) return { ...row, channel_id: channel };
    return {
      ...row,
      channel_id: channel,
      input_tokens: row.input_tokens + usage.input,
      output_tokens: row.output_tokens + usage.output,
      total_tokens: row.total_tokens + usage.input + usage.output,
      reports: row.reports + 1,
      updated_at: isoOf(wire.ts),
    };
  },
};
