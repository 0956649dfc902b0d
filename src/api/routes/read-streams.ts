import { Hono } from 'hono';
import * as z from 'zod';
import type { AppEnv } from '../app-env';
import { listPage } from './read-page';
import { Freshness, Name, Paging, withJson } from './read-support';

/**
 * `GET /v1/streams`: the list, from stream_state. Mounted at exactly
 * `/v1/streams`; `/v1/streams/{id}…` stays with routes/streams.ts.
 */
export const readStreams = new Hono<AppEnv>();

const Kind = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a stream kind such as task');
const Status = z.string().regex(/^[a-z][a-z_]{0,31}$/, 'must be a status word such as active');

/** `GET /v1/streams` */
export const StreamsQuery = {
  type: Kind.optional(),
  status: Status.optional(),
  correlation_id: Name.optional(),
  ...Paging,
  ...Freshness,
};

readStreams.get('/streams', (c) =>
  listPage(c, StreamsQuery, {
    table: 'stream_state',
    keys: ['stream_id'],
    list: 'streams',
    equal: { stream_type: 'type', status: 'status', correlation_id: 'correlation_id' },
    item: (r) => withJson(r, ['state']),
  }),
);
