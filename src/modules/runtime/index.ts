import { defineModule } from '../../kernel/module';
import { RUNTIME_TYPES } from './catalogue';
import { DERIVED } from './envelope';
import { artifactKind } from './kinds/artifact';
import { branchKind } from './kinds/branch';
import { channelKind } from './kinds/channel';
import { workerKind } from './kinds/worker';
import { RUNTIME_PROBLEMS } from './problems';
import { runtimeChannels } from './read-models/channels';
import {
  runtimeArtifacts,
  runtimeBulletins,
  runtimeMemory,
  runtimeTokenUsage,
} from './read-models/records';
import { runtimeTasks } from './read-models/tasks';
import { artifacts } from './routes/artifacts';
import { branches } from './routes/branches';
import { bulletins } from './routes/bulletins';
import { channels } from './routes/channels';
import { schema } from './routes/schema';
import { workers } from './routes/workers';
import { runVisor } from './visor';

/**
 * Seed 003's Runtime v1: channels that route by rule, branches that return
 * only a conclusion, workers (fire-and-forget or interactive) with enforced
 * lifecycles and timeouts, the compactor's thresholds, the Visor's bulletins
 * on the cron, artifacts in R2 — every event an Envelope v1 Wire.
 */
export const runtime = defineModule({
  name: 'runtime',
  kinds: [channelKind, workerKind, branchKind, artifactKind],
  types: RUNTIME_TYPES,
  derivedIds: [DERIVED],
  problems: RUNTIME_PROBLEMS,
  readModels: [
    runtimeChannels,
    runtimeTasks,
    runtimeArtifacts,
    runtimeMemory,
    runtimeBulletins,
    runtimeTokenUsage,
  ],
  initialStatus: { channel: 'pending', worker: 'spawned', branch: 'spawned' },
  routes: [channels, workers, branches, artifacts, bulletins, schema],
  async scheduled(env, at) {
    await runVisor(env, at);
  },
});
