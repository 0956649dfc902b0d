import { derivedWireId } from '../../../kernel/derived-id';
import { accept } from '../../../kernel/kind';
import { hasOwnKey, ownValue } from '../../../kernel/records';
import { type Draft, fail, type Wire } from '../../../protocol';
import { speaksFor } from '../identity';
import { capsuleLines, cycleThrough, MAX_CAPSULE_LINES } from './capsules';
import { validateMessage } from './messages';
import { opt, s, strs } from './payload-readers';
import { rejectKey, type WorkspaceState } from './state';

// The `workspace:<ws>` decider's rules that take more than a few lines: who
// may act as a haid, a capsule's limits and references, the escalation of a
// message invalid twice; and the Wires the decider derives from a command.

export function haidCheck(command: Wire) {
  const haid = s(command.payload, 'haid');
  if (haid && !speaksFor(command.sender, haid)) {
    return fail('forbidden', `sender "${command.sender}" may not act as haid "${haid}"`, {
      extra: { field: 'haid', haid },
    });
  }
  return null;
}

export function derived(
  command: Wire,
  kind: string,
  type: string,
  payload: Draft['payload'],
): Draft {
  return {
    wire: '1.1',
    wire_id: derivedWireId(kind, command.wire_id),
    stream_id: command.stream_id,
    correlation_id: command.correlation_id,
    causation_id: command.wire_id,
    type,
    sender: 'system',
    ts: command.ts,
    payload,
  };
}

export function decideCapsule(command: Wire, state: WorkspaceState) {
  const p = command.payload;
  const id = s(p, 'id');
  const depends = strs(p.depends);
  const lines = capsuleLines({
    what: s(p, 'what'),
    where: opt(p, 'where'),
    decision: opt(p, 'decision'),
    gotcha: opt(p, 'gotcha'),
    depends,
  });
  if (lines.length > MAX_CAPSULE_LINES) {
    return fail(
      'capsule-too-long',
      `capsule "${id}" would be ${lines.length} lines; the cap is ${MAX_CAPSULE_LINES} (compact it)`,
      { extra: { lines: lines.length, max_lines: MAX_CAPSULE_LINES } },
    );
  }
  const missing = depends.find((dep) => dep !== id && !hasOwnKey(state.capsules, dep));
  if (missing) {
    return fail(
      'unknown-reference',
      `capsule "${id}" depends on "${missing}", which does not exist`,
      {
        errors: [{ path: 'depends', message: `no capsule "${missing}"` }],
      },
    );
  }
  const cycle = cycleThrough(state.capsules, id, depends);
  if (cycle) {
    return fail('capsule-cycle', `capsule "${id}" would close the cycle ${cycle.join(' -> ')}`, {
      extra: { cycle },
    });
  }
  return accept(command);
}

/** The escalation's own msg_id, derived from the rejection that caused it. */
export function escalationMsgId(rejectionWireId: string): string {
  return derivedWireId('esc', rejectionWireId);
}

export function decideMessage(command: Wire, state: WorkspaceState) {
  if (command.type === 'message.accepted') {
    // Whatever route it took (`POST …/messages` or the generic append), a
    // message is one of the six types; only the gate's own escalations skip this.
    if (command.sender === 'system') return accept(command);
    const checked = validateMessage(command.payload.message);
    if (checked.valid) return accept(command);
    return fail('invalid-message', `payload.message: ${checked.errors.join('; ')}`, {
      errors: checked.errors.map((e) => ({
        path: `payload.message.${e.split(':')[0]}`,
        message: e,
      })),
    });
  }
  // message.rejected: the second invalid attempt of one msg_id by one haid escalates.
  const p = command.payload;
  const haid = s(p, 'haid');
  const msgId = opt(p, 'msg_id');
  const attempts = (ownValue(state.messages.rejects, rejectKey(haid, msgId)) ?? 0) + 1;
  if (attempts < 2) return accept(command);
  const escalation = derived(command, 'msgesc', 'message.accepted', {
    haid: 'system',
    message: {
      type: 'escalation',
      from: 'heimdall',
      msg_id: escalationMsgId(command.wire_id),
      reason: `message ${msgId ?? '(no msg_id)'} from ${haid} was invalid ${attempts} times: ${strs(p.errors).join('; ')}`,
      severity: 'blocker',
      refs: msgId ? [msgId] : [],
    },
  });
  return [...accept(command), escalation];
}
