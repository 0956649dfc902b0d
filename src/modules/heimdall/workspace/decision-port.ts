import { derivedWireId } from '../../../kernel/derived-id';
import type { Port } from '../../../kernel/module';
import type { Draft } from '../../../protocol';
import { Haid, WorkspaceId, workspaceStream } from '../identity';
import { DecisionPayload } from './payloads';

/** The port other modules feed the workspace decision log through. */
export const DECISION_LOG_PORT = 'decision-log';

/** The wire-id prefix of decisions appended through the port. */
export const DECISION_PORT_ID = 'decport';

/**
 * `decision-log`: `{workspace, title, body, haid, …}` from another module's
 * Wire becomes a `decision.appended` on `workspace:<workspace>` — the same
 * log `append_decision` and `POST /v1/workspaces/{ws}/decisions` write. Extra
 * fields travel with the entry. Its wire id is derived from the cause, so a
 * redelivered effect is a replay. Input that is not a decision sends nothing.
 */
export const decisionLogPort: Port = (input, cause) => {
  const { workspace, ...fields } = input;
  const ws = WorkspaceId.safeParse(workspace);
  const payload = DecisionPayload.safeParse(fields);
  if (!ws.success || !payload.success || !Haid.safeParse(fields.haid).success) return null;
  const target = workspaceStream(ws.data);
  return {
    target,
    draft: {
      wire: '1.1',
      wire_id: derivedWireId(DECISION_PORT_ID, cause.wire_id),
      stream_id: target,
      correlation_id: cause.correlation_id,
      causation_id: cause.wire_id,
      type: 'decision.appended',
      sender: 'system',
      ts: cause.ts,
      payload: payload.data as Draft['payload'],
    },
  };
};
