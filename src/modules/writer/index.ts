import { defineModule } from '../../kernel/module';
import { WRITER_DERIVED_IDS, WRITER_TYPES } from './catalogue';
import { WRITER_KINDS } from './kinds';
import { WRITER_PROBLEMS } from './problems';
import { writerRuns } from './read-models/writer-runs';
import { follow } from './routes/follow';
import { readRuns } from './routes/read-runs';
import { runs } from './routes/runs';

/**
 * Seed 002's run documents: one writer authority per run (the `run:` stream's
 * Durable Object) through which every canon change passes, typed actor
 * messages answered by `WriterAck` / `WriterReject`, proposals apart from
 * canon, gap-free revisions, a mailbox for the writer and a trace plane
 * apart from control; the `writer_runs` read model; `/v1/runs`; the MCP
 * tools `message_actor`, `request_conductor`, `read_run_document`,
 * `list_run_revisions`.
 */
export const writer = defineModule({
  name: 'writer',
  kinds: WRITER_KINDS,
  types: WRITER_TYPES,
  derivedIds: WRITER_DERIVED_IDS,
  problems: WRITER_PROBLEMS,
  readModels: [writerRuns],
  initialStatus: { run: 'open', 'run-mailbox': 'open', 'run-trace': 'open' },
  routes: [runs, readRuns, follow],
});
