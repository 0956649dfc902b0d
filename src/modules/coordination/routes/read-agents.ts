import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  Freshness,
  listPage,
  Name,
  Paging,
  readOne,
  withJson,
} from '../../../api/module-kit';
import { intVar } from '../../../env';
import { fail } from '../../../protocol';

/**
 * `GET /v1/agents` and `GET /v1/agents/{agent_id}` from agent_runtime_state.
 * `stale` is worked out at read time (the reducers read no clock): an agent
 * whose own last Wire is older than AGENT_STALE_SECONDS (default 120), the
 * same window the coordinator uses.
 */
export const readAgents = new Hono<AppEnv>();

const JSON_COLUMNS = ['skills', 'leases', 'reservations'];

function staleBefore(env: { AGENT_STALE_SECONDS?: string }): string {
  return new Date(Date.now() - intVar(env.AGENT_STALE_SECONDS, 120) * 1000).toISOString();
}

function agentJson(row: Record<string, unknown>, before: string) {
  const { reducer_version: _v, ...rest } = withJson(row, JSON_COLUMNS);
  const seen = row.last_seen_at;
  return { ...rest, stale: typeof seen !== 'string' || seen < before };
}

const Bool = z.enum(['true', 'false'], { error: 'must be true or false' });

/** `GET /v1/agents` */
export const AgentsQuery = {
  role: Name.optional(),
  status: z.enum(['unknown', 'running', 'stopped']).optional(),
  stale: Bool.optional(),
  ...Paging,
  ...Freshness,
};

readAgents.get('/agents', (c) => {
  const before = staleBefore(c.env);
  return listPage(c, AgentsQuery, {
    table: 'agent_runtime_state',
    keys: ['agent_id'],
    list: 'agents',
    equal: { role: 'role', status: 'status' },
    more(q, where) {
      if (q.stale === 'true') where.add('(last_seen_at IS NULL OR last_seen_at < ?)', before);
      if (q.stale === 'false') where.add('last_seen_at >= ?', before);
    },
    item: (r) => agentJson(r, before),
  });
});

readAgents.get('/agents/:agent_id', (c) => {
  const before = staleBefore(c.env);
  // Accepts both "quinn-07" and its stream id "agent:quinn-07".
  return readOne(c, 'agent_id', {
    table: 'agent_runtime_state',
    column: 'agent_id',
    prefix: 'agent:',
    build([row], bare) {
      if (!row) return fail('not-found', `agent "${bare}" has no projected agent stream`);
      return { ok: true, body: agentJson(row, before) };
    },
    streamOf: (bare) => `agent:${bare}`,
  });
});
