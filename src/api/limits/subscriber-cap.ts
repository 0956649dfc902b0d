import { intVar } from '../../env';
import { type Failure, fail } from '../../protocol';
import type { StreamApi } from '../../stream/stub';

/**
 * A 429 before the upgrade when the stream already has `WS_MAX_SUBSCRIBERS`
 * live sockets (default 256), else null. Counted by the StreamObject itself.
 */
export async function subscriberCapProblem(
  env: { WS_MAX_SUBSCRIBERS?: string },
  stream: StreamApi,
): Promise<Failure | null> {
  const cap = intVar(env.WS_MAX_SUBSCRIBERS, 256);
  const count = await stream.subscriberCount();
  if (count < cap) return null;
  return fail(
    'too-many-subscribers',
    `the stream has ${count} live subscribers; the cap is ${cap}`,
    {
      extra: { max_subscribers: cap },
    },
  );
}
