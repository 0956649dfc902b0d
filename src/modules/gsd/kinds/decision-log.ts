import type { PortEffect } from '../../../kernel/kind';
import type { Wire } from '../../../protocol';
import { eventOf, str } from '../event';
import { BUILTINS, runs } from '../handlers';
import { workspaceOf } from './file-claims';
import type { GsdState } from './state';

/** The kernel port the workspace decision log is offered under (by seed 001's module). */
const DECISION_LOG = 'decision-log';
const TITLE_MAX = 300;

/**
 * `builtin:decision-tracker`: besides the project's own log (a fold, in
 * `GsdState.decisions`), each `decision:made` is appended to the workspace
 * decision log of the same id — the log of MCP's `append_decision` — through
 * the kernel's `decision-log` port, as a durable outbox effect caused by the
 * event (exactly once: its wire id derives from the event's). The entry is
 * attributed to the event's sender and carries the seed's fields. The fields
 * the log is addressed and checked by come last, so an event's own members
 * of those names (`workspace`, `haid`, `title`, `body`, …) can neither send
 * the entry to another workspace or author nor make the port refuse it.
 */
export function decisionLogEffects(state: GsdState, wire: Wire): PortEffect[] {
  const event = eventOf(wire);
  if (event.type !== 'decision:made') return [];
  if (!runs(state.handlers, event.type, BUILTINS.decisionTracker)) return [];
  const decision = str(event, 'decision') ?? '';
  const rationale = str(event, 'rationale');
  const { type: _t, timestamp: _ts, id, decision: _d, rationale: _r, ...rest } = event;
  return [
    {
      via: 'port',
      port: DECISION_LOG,
      input: {
        ...rest,
        workspace: workspaceOf(wire.stream_id),
        title: decision.length > TITLE_MAX ? `${decision.slice(0, TITLE_MAX - 1)}…` : decision,
        body: rationale ? `${decision}\n\nRationale: ${rationale}` : decision,
        haid: wire.sender,
        source: 'gsd',
        gsd_event_id: wire.stream_seq,
        ...(typeof id === 'string' ? { decision_id: id } : {}),
      },
    },
  ];
}
