import type { Context } from 'hono';
import { intVar } from '../../env';
import { type Failure, fail } from '../../protocol';
import type { StreamApi } from '../../stream/stub';
import type { AppEnv } from '../app-env';
import { problem } from '../problem';

/**
 * Why a WebSocket upgrade cannot be served, checked before it: a 429 when the
 * stream already has `WS_MAX_SUBSCRIBERS` live sockets (default 256, counted
 * by the StreamObject itself), a 400 when `afterSeq` is past the stream's
 * head (nothing after it exists, so the socket would wait in silence: the
 * client's cursor comes from somewhere else). Null when it can.
 */
export async function subscribeProblem(
  env: { WS_MAX_SUBSCRIBERS?: string },
  stream: StreamApi,
  afterSeq: number,
  param = 'after_seq',
): Promise<Failure | null> {
  const cap = intVar(env.WS_MAX_SUBSCRIBERS, 256);
  const { subscribers: count, last_seq } = await stream.subscription();
  if (afterSeq > last_seq) {
    return fail(
      'invalid-query',
      `${param}=${afterSeq} is past the stream's last_seq ${last_seq}: resume from at most ${last_seq}`,
      { extra: { last_seq } },
    );
  }
  if (count < cap) return null;
  return fail(
    'too-many-subscribers',
    `the stream has ${count} live subscribers; the cap is ${cap}`,
    {
      extra: { max_subscribers: cap },
    },
  );
}

/**
 * Hands a WebSocket follow to the stream: `subscribeProblem` first, then the
 * Upgrade header (checked after, so a plain GET — the client SDK's probe
 * after a refused upgrade, which a browser cannot read — hears why), then
 * `request` (the client's own by default) to the StreamObject.
 */
export async function followSocket(
  c: Context<AppEnv>,
  stream: StreamApi,
  afterSeq: number,
  options: { param?: string; request?: Request } = {},
): Promise<Response> {
  const refused = await subscribeProblem(c.env, stream, afterSeq, options.param);
  if (refused) return problem(c, refused);
  if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
    return problem(
      c,
      fail('invalid-header', 'this endpoint needs a WebSocket upgrade (Upgrade: websocket)'),
    );
  }
  return stream.fetch(options.request ?? c.req.raw);
}
