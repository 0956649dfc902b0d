import { Hono } from 'hono';
import type { AppEnv } from '../../api/app-env';
import type { ProtocolModule } from '../../kernel/module';
import type { Reducer } from '../../projection/reducer';
import type { BaseRow } from '../../projection/types';
import { WRITER_DERIVED_IDS, WRITER_TYPES } from './catalogue';
import { WRITER_KINDS } from './kinds';
import { WRITER_TOOLS } from './mcp';
import { WRITER_OPERATIONS } from './openapi';
import { WRITER_PROBLEMS } from './problems';
import { writerRuns } from './read-models/writer-runs';
import { follow } from './routes/follow';
import { readRuns } from './routes/read-runs';
import { runs } from './routes/runs';

const routes = new Hono<AppEnv>();
routes.route('/', runs);
routes.route('/', readRuns);
routes.route('/', follow);

/**
 * Seed 002's run documents: one writer authority per run (the `run:` stream's
 * Durable Object) through which every canon change passes, typed actor
 * messages answered by `WriterAck` / `WriterReject`, proposals apart from
 * canon, gap-free revisions, a mailbox for the writer and a trace plane
 * apart from control; the `writer_runs` read model; `/v1/runs`; the MCP
 * tools `message_actor`, `request_conductor`, `read_run_document`,
 * `list_run_revisions`.
 */
export const writer: ProtocolModule = {
  name: 'writer',
  kinds: WRITER_KINDS,
  types: WRITER_TYPES,
  derivedIds: WRITER_DERIVED_IDS,
  problems: WRITER_PROBLEMS,
  readModels: [writerRuns as unknown as Reducer<BaseRow>],
  initialStatus: { run: 'open', 'run-mailbox': 'open', 'run-trace': 'open' },
  routes,
  operations: WRITER_OPERATIONS,
  mcpTools: WRITER_TOOLS,
};
