import type { Env } from '../env';
import { KindRunner } from '../kernel/kind-runner';
import type { Outbox } from '../kernel/outbox';
import type { Sql } from '../kernel/sql';
import type { Webhooks } from '../kernel/webhooks/store';
import { REGISTRY } from '../modules';
import type { Draft } from '../protocol';
import { streamStub } from './stub';
import type { WireLog } from './wire-log';

/**
 * The runner of a stream's kind (`kernel/kind-runner.ts`) over the stream's
 * log, outbox and webhooks; `appendLocal` commits the kind's own Wires to this
 * stream, effects on other streams go through their stubs.
 */
export function streamKinds(
  sql: Sql,
  env: Env,
  log: WireLog,
  outbox: Outbox,
  webhooks: Webhooks,
  appendLocal: (draft: Draft) => void,
): KindRunner {
  return new KindRunner({
    sql,
    log,
    outbox,
    sendWebhook: (effect, now) =>
      webhooks.send(effect.endpoint_id, effect.event_type, effect.body, now),
    env,
    registry: REGISTRY,
    appendLocal,
    appendTo: (streamId, draft) => streamStub(env, streamId).append(draft),
  });
}
