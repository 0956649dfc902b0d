import { accept, type Decider } from '../../../kernel/kind';
import { hasOwnKey, ownValue, withOwn } from '../../../kernel/records';
import { fail } from '../../../protocol';
import { type Capsule, closure } from './capsules';
import { num, opt, type P, s, strs } from './payload-readers';
import { decideCapsule, decideMessage, derived, haidCheck } from './rules';
import {
  type ConflictRecord,
  conflictPath,
  type Decision,
  HISTORY_KEPT,
  rejectKey,
  type Versioned,
  type VersionRef,
  type WorkspaceState,
} from './state';

/**
 * The decider of `workspace:<ws>` streams: the symbol table, capsules,
 * blackboard, token ledger, decisions log, conflict records and the typed
 * messages received. Each rule the seed states is a refusal here (a symbol
 * re-set to another value unless forced, a capsule over 10 lines, unknown or
 * cyclic depends); two Wires are the decider's own verdicts, appended in the
 * same stretch: a brief's ledger line and the escalation of a message that
 * was invalid twice.
 */

export const workspaceDecider: Decider<WorkspaceState, unknown> = {
  initialState: () => ({
    symbols: {},
    capsules: {},
    blackboard: {},
    ledger: { totals: {}, baselines: {} },
    decisions: [],
    conflicts: {},
    messages: { accepted: 0, by_type: {}, rejects: {}, escalations: 0 },
    briefs: 0,
    latest: { conflict: null, rejection: null },
  }),

  decide(command, state) {
    const denied = haidCheck(command);
    if (denied) return denied;
    const p = command.payload;
    switch (command.type) {
      case 'symbol.set': {
        const id = s(p, 'id');
        const current = ownValue(state.symbols, id);
        if (current && current.value !== s(p, 'value') && p.force !== true) {
          return fail(
            'symbol-conflict',
            `symbol "${id}" already names "${current.value}" (set by ${current.by}); re-setting it to another value needs force: true`,
            { extra: { id, current: current.value } },
          );
        }
        return accept(command);
      }
      case 'capsule.written':
        return decideCapsule(command, state);
      case 'brief.built': {
        const missing = closure(state.capsules, strs(p.capsules));
        if (!missing.ok) return fail('unknown-reference', `no capsule "${missing.unknown}"`);
        const unknown = strs(p.symbols).find((id) => !hasOwnKey(state.symbols, id));
        if (unknown) return fail('unknown-reference', `no symbol "${unknown}"`);
        const line = derived(command, 'brieflog', 'ledger.logged', {
          role: s(p, 'role'),
          kind: 'delta_brief',
          tokens: num(p, 'tokens'),
          msg_id: s(p, 'task'),
          haid: s(p, 'haid'),
        });
        const { stream_seq: _seq, ...draft } = command;
        return [draft, line];
      }
      case 'conflict.raised': {
        const path = conflictPath(command.ts, s(p, 'id'));
        if (hasOwnKey(state.conflicts, path)) {
          return fail('invalid-transition', `the conflict record ${path} exists already`);
        }
        const { stream_seq: _seq, ...draft } = command;
        const link = derived(command, 'conflictlog', 'decision.appended', {
          title: `Conflict: ${s(p, 'title')}`,
          body: `Conflict record [${path}](${path}) on ${strs(p.surfaces).join(', ')}${
            opt(p, 'displaced_haid') ? ` (displaced: ${s(p, 'displaced_haid')})` : ''
          }.`,
          haid: s(p, 'haid'),
          conflict: path,
        });
        return [draft, link];
      }
      case 'message.accepted':
      case 'message.rejected':
        return decideMessage(command, state);
      case 'blackboard.set':
      case 'ledger.logged':
      case 'ledger.baseline':
      case 'decision.appended':
      case 'planning.imported':
        return accept(command);
      default:
        return fail('invalid-transition', `"${command.type}" is not a workspace Wire`);
    }
  },

  evolve(state, wire) {
    const p = wire.payload;
    const by = s(p, 'haid') || wire.sender;
    switch (wire.type) {
      case 'symbol.set':
      case 'blackboard.set': {
        const table = wire.type === 'symbol.set' ? 'symbols' : 'blackboard';
        const key = wire.type === 'symbol.set' ? s(p, 'id') : s(p, 'key');
        const before = ownValue(state[table], key);
        // A forced re-set to another value is marked on the entry and its version.
        const forced =
          p.force === true && before && before.value !== s(p, 'value') ? { forced: true } : {};
        const entry: Versioned = { value: s(p, 'value'), by, at: wire.ts, ...forced };
        const ref: VersionRef = { seq: wire.stream_seq, by, at: wire.ts, ...forced };
        const history = [...(before?.history ?? []), ref].slice(-HISTORY_KEPT);
        const versions = (before?.versions ?? 0) + 1;
        return {
          ...state,
          [table]: withOwn(state[table], key, { ...entry, history, versions }),
        };
      }
      case 'capsule.written': {
        const capsule: Capsule = {
          id: s(p, 'id'),
          what: s(p, 'what'),
          where: opt(p, 'where'),
          decision: opt(p, 'decision'),
          gotcha: opt(p, 'gotcha'),
          depends: strs(p.depends),
          by,
          at: wire.ts,
        };
        return { ...state, capsules: withOwn(state.capsules, capsule.id, capsule) };
      }
      case 'ledger.logged': {
        const role = s(p, 'role');
        const now = ownValue(state.ledger.totals, role) ?? { tokens: 0, lines: 0 };
        const totals = withOwn(state.ledger.totals, role, {
          tokens: now.tokens + num(p, 'tokens'),
          lines: now.lines + 1,
        });
        return { ...state, ledger: { ...state.ledger, totals } };
      }
      case 'ledger.baseline': {
        const baselines = withOwn(state.ledger.baselines, s(p, 'role'), num(p, 'tokens'));
        return { ...state, ledger: { ...state.ledger, baselines } };
      }
      case 'brief.built':
        return { ...state, briefs: state.briefs + 1 };
      case 'decision.appended': {
        const decision: Decision = {
          seq: state.decisions.length + 1,
          title: s(p, 'title'),
          haid: by,
          at: wire.ts,
          wire_seq: wire.stream_seq,
        };
        return { ...state, decisions: [...state.decisions, decision] };
      }
      case 'conflict.raised': {
        const path = conflictPath(wire.ts, s(p, 'id'));
        const record: ConflictRecord = {
          path,
          id: s(p, 'id'),
          title: s(p, 'title'),
          surfaces: strs(p.surfaces),
          displaced_haid: opt(p, 'displaced_haid'),
          overriding_intent: opt(p, 'overriding_intent'),
          displaced_intent: opt(p, 'displaced_intent'),
          haid: by,
          at: wire.ts,
          decision_seq: state.decisions.length + 1,
        };
        return {
          ...state,
          conflicts: withOwn(state.conflicts, path, record),
          latest: { ...state.latest, conflict: path },
        };
      }
      case 'message.accepted': {
        const message = (p.message ?? {}) as P;
        const type = s(message, 'type');
        const rejects = { ...state.messages.rejects };
        delete rejects[rejectKey(s(p, 'haid'), opt(message, 'msg_id'))];
        return {
          ...state,
          messages: {
            ...state.messages,
            accepted: state.messages.accepted + 1,
            by_type: withOwn(
              state.messages.by_type,
              type,
              (ownValue(state.messages.by_type, type) ?? 0) + 1,
            ),
            rejects,
            escalations:
              state.messages.escalations +
              (wire.sender === 'system' && type === 'escalation' ? 1 : 0),
          },
        };
      }
      case 'message.rejected': {
        const key = rejectKey(s(p, 'haid'), opt(p, 'msg_id'));
        const attempt = (ownValue(state.messages.rejects, key) ?? 0) + 1;
        const rejects = withOwn(state.messages.rejects, key, attempt);
        return {
          ...state,
          messages: { ...state.messages, rejects },
          latest: { ...state.latest, rejection: { wire_id: wire.wire_id, attempt } },
        };
      }
      default:
        return state;
    }
  },
};
