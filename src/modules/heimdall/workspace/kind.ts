import { defineUnconfiguredKind, type ReceiptFields } from '../../../kernel/kind';
import { ownValue } from '../../../kernel/records';
import { workspaceDecider } from './decider';
import { escalationMsgId } from './rules';
import type { WorkspaceState } from './state';

/**
 * The `workspace:<ws>` stream kind. Receipts carry what a route answers
 * with: a decision's `decision_seq`, a conflict record's `path` and the seq
 * of its cross-linking decision, a rejected message's `attempt` (and, from
 * the second, the msg_id of the escalation appended after it).
 */
export const workspaceKind = defineUnconfiguredKind<WorkspaceState>({
  name: 'workspace',
  // 2: decisions keep their Wire's seq instead of their body, a key its last 20 versions.
  // 3: a key's versions keep their Wire's seq instead of their value.
  version: 3,
  decider: workspaceDecider,
  hooks: {
    receipt(state, wire, replay): ReceiptFields | null {
      if (replay) return null;
      switch (wire.type) {
        case 'decision.appended':
          return { decision_seq: state.decisions.length };
        case 'conflict.raised': {
          const path = state.latest.conflict;
          const record = path ? ownValue(state.conflicts, path) : undefined;
          return record ? { path: record.path, decision_seq: record.decision_seq } : null;
        }
        case 'message.rejected': {
          const r = state.latest.rejection;
          if (r?.wire_id !== wire.wire_id) return null;
          return {
            attempt: r.attempt,
            escalation_msg_id: r.attempt >= 2 ? escalationMsgId(wire.wire_id) : null,
          };
        }
        default:
          return null;
      }
    },
  },
});
