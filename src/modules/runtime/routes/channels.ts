import { Hono } from 'hono';
import { AfterSeq, type AppEnv, limitQuery, parseQuery, problem } from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { toEnvelope } from '../envelope';
import { appendChecked, appendEnvelope, appendOpening, readEnvelope } from './append-envelope';
import { kindPath, pathId } from './path-ids';

/**
 * FR-8's channel side: create a channel with its policy, post a message
 * (`channel.route.decided` is written in the same stretch), route a message
 * to an interactive worker, apply a summary, read the state, read and follow
 * the events (as Envelope v1; the follow is the stream's own WebSocket).
 */
export const channels = new Hono<AppEnv>();

/** `GET /v1/channels/{id}/events` */
export const ChannelEventsQuery = { after_seq: AfterSeq, limit: limitQuery(500) };

channels.post('/channels', (c) =>
  appendOpening(c, 'channel', 'channelId', { messageTypes: ['channel.opened'] }),
);

channels.use('/channels/:channel_id/*', kindPath('channel', 'channel_id'));

channels.post('/channels/:channel_id/messages', async (c) => {
  const id = c.req.param('channel_id');
  const env = await readEnvelope(c, {
    messageTypes: ['channel.message.received'],
    equal: { channelId: id },
  });
  if (!env.ok) return problem(c, env);
  if (env.body.workerId !== undefined)
    return problem(
      c,
      fail(
        'invalid-wire',
        'workerId: route a message to a worker with POST /v1/channels/{id}/route/{workerId}',
        {
          errors: [{ path: 'workerId', message: 'not taken here' }],
        },
      ),
    );
  return appendEnvelope(c, `channel:${id}`, env.body);
});

channels.post('/channels/:channel_id/route/:worker_id', async (c) => {
  const id = c.req.param('channel_id');
  const worker = pathId('workerId', c.req.param('worker_id'));
  if (!worker.ok) return problem(c, worker);
  return appendChecked(c, `channel:${id}`, {
    messageTypes: ['channel.message.received'],
    equal: { channelId: id, workerId: worker.id },
  });
});

channels.post('/channels/:channel_id/summaries', (c) =>
  appendChecked(c, `channel:${c.req.param('channel_id')}`, {
    messageTypes: ['compactor.summary.applied'],
    equal: { channelId: c.req.param('channel_id') },
  }),
);

channels.get('/channels/:channel_id/state', async (c) => {
  const id = c.req.param('channel_id');
  const stub = streamStub(c.env, `channel:${id}`);
  const view = await stub.coordination();
  const state = view.state as { opened?: boolean } | null;
  if (!state?.opened) return problem(c, fail('not-found', `channel "${id}" is not open`));
  return Response.json({ channelId: id, ...state, outbox: view.outbox });
});

channels.get('/channels/:channel_id/events', async (c) => {
  const parsed = parseQuery(c, ChannelEventsQuery, { strict: false });
  if (!parsed.ok) return problem(c, parsed);
  const id = c.req.param('channel_id');
  const page = await streamStub(c.env, `channel:${id}`).read(
    parsed.query.after_seq,
    parsed.query.limit,
  );
  if (page.last_seq === 0) return problem(c, fail('not-found', `channel "${id}" has no events`));
  const last = page.wires.at(-1)?.stream_seq ?? parsed.query.after_seq;
  return Response.json({
    channelId: id,
    events: page.wires.map((w) => ({ seq: w.stream_seq, envelope: toEnvelope(w) })),
    last_seq: page.last_seq,
    next_after_seq: last < page.last_seq ? last : null,
  });
});
