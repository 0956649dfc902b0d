import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../../../api/app-env';
import { problem } from '../../../api/problem';
import { listPage } from '../../../api/routes/read-page';
import {
  answer,
  Freshness,
  Name,
  oneQuery,
  Paging,
  Where,
  withJson,
} from '../../../api/routes/read-support';
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
    where: (q) => {
      const where = new Where().eq('role', q.role).eq('status', q.status).streams('stream_id', c);
      if (q.stale === 'true') where.add('(last_seen_at IS NULL OR last_seen_at < ?)', before);
      if (q.stale === 'false') where.add('last_seen_at >= ?', before);
      return where;
    },
    item: (r) => agentJson(r, before),
  });
});

readAgents.get('/agents/:agent_id', async (c) => {
  const one = oneQuery(c, 'agent_id');
  if (!one.ok) return problem(c, one);
  const agentId = one.id;
  // Accept both "quinn-07" and its stream id "agent:quinn-07".
  const bare = agentId.startsWith('agent:') ? agentId.slice('agent:'.length) : agentId;
  const where = new Where().eq('agent_id', bare).streams('stream_id', c);
  const stmt = c.env.DB.prepare(`SELECT * FROM agent_runtime_state ${where.sql}`).bind(
    ...where.params,
  );
  const before = staleBefore(c.env);
  return answer(
    c,
    one.query,
    [stmt],
    ([rows = []]) => {
      const row = rows[0];
      if (!row) return fail('not-found', `agent "${bare}" has no projected agent stream`);
      return { ok: true, body: agentJson(row, before) };
    },
    `agent:${bare}`,
  );
});
