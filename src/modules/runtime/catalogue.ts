import type { StreamSummary, TypeSpec } from '../../kernel/module';
import { spawnPlace } from './admission';
import { wireType } from './envelope';
import { PAYLOADS, type RuntimeMessageType } from './payloads';

/**
 * Runtime v1's type catalogue: FR-2's eleven message types plus the
 * module's additive ones (`channel.opened`, `memory.saved`,
 * `artifact.stored`), each under `runtime.` as the dialect names them.
 */
const STATUS: Partial<Record<RuntimeMessageType, string>> = {
  'channel.opened': 'active',
  'branch.spawned': 'spawned',
  'branch.conclusion': 'concluded',
  'worker.progress': 'running',
  'worker.completed': 'completed',
  'worker.failed': 'failed',
};

function countOf(field: string) {
  return (summary: StreamSummary): StreamSummary => ({
    ...summary,
    [field]: ((summary[field] as number | undefined) ?? 0) + 1,
  });
}

export const RUNTIME_TYPES: Record<string, TypeSpec> = Object.fromEntries(
  (Object.keys(PAYLOADS) as RuntimeMessageType[]).map((type) => {
    const spec: TypeSpec = { payload: PAYLOADS[type] };
    const status = STATUS[type];
    if (status) spec.status = status;
    if (type === 'compactor.threshold.hit') spec.summarize = countOf('threshold_hits');
    if (type === 'worker.spawned') spec.admit = spawnPlace;
    return [wireType(type), spec];
  }),
);
