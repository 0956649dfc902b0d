import { accept, type Effect } from '../../../kernel/kind';
import { withOwn } from '../../../kernel/records';
import { fail, type Wire } from '../../../protocol';
import { copyTo, envelopeMembers, memberOf, messageTypeOf } from '../envelope';
import type { TokenUsage } from '../payloads';
import { read, workerUpdate } from './read';
import { runtimeKind } from './runtime-kind';

/**
 * `branch:<id>` (FR-4): a fork of a channel's context for focused work. Its
 * log holds `branch.spawned`, the lifecycle of the workers it spawned, and
 * its one `branch.conclusion` — never a transcript: the branch's agent keeps
 * its working context to itself and returns only `conclusion`,
 * `artifactRefs`, `memoryRefs` and `tokenUsage`, which go to the channel.
 */
export interface BranchState {
  status: 'none' | 'spawned' | 'concluded';
  channelId: string | null;
  goal: string | null;
  fromMessageId: string | null;
  workers: Record<string, string>;
  conclusion: {
    conclusion: string;
    artifactRefs: string[];
    memoryRefs: string[];
    tokenUsage: TokenUsage;
  } | null;
}

const ENVELOPE_OF_CONCLUSION = new Set([
  'protocolVersion',
  'channelId',
  'taskId',
  'branchId',
  'workerId',
  'extensions',
]);

export function initialBranch(): BranchState {
  return {
    status: 'none',
    channelId: null,
    goal: null,
    fromMessageId: null,
    workers: {},
    conclusion: null,
  };
}

export function evolveBranch(state: BranchState, wire: Wire): BranchState {
  const type = messageTypeOf(wire.type);
  switch (type) {
    case 'branch.spawned': {
      const p = read('branch.spawned', wire.payload);
      if (!p) return state;
      return {
        ...state,
        status: 'spawned',
        channelId: memberOf(wire.payload, 'channelId') ?? null,
        goal: p.goal,
        fromMessageId: p.fromMessageId ?? null,
      };
    }
    case 'branch.conclusion': {
      const p = read('branch.conclusion', wire.payload);
      if (!p) return state;
      const { $envelope: _e, ...conclusion } = p;
      return { ...state, status: 'concluded', conclusion };
    }
    default: {
      const update = workerUpdate(type, wire.payload);
      if (!update) return state;
      return { ...state, workers: withOwn(state.workers, update.workerId, update.status) };
    }
  }
}

function decide(command: Wire, state: BranchState) {
  const type = messageTypeOf(command.type);
  const branchId = command.stream_id.slice('branch:'.length);
  if (type === 'branch.spawned') {
    // Only its channel's routing spawns a branch (an effect, sent as `system`).
    if (command.sender !== 'system')
      return fail(
        'invalid-transition',
        `branch "${branchId}" cannot be spawned directly: a channel spawns its branches when a spawn_branch rule routes a message (POST /v1/channels/{id}/messages)`,
      );
    if (state.status !== 'none')
      return fail('invalid-transition', `branch "${branchId}" already exists`);
  } else if (type === 'branch.conclusion') {
    if (state.status === 'none') return fail('not-found', `branch "${branchId}" was never spawned`);
    if (state.status === 'concluded')
      return fail('invalid-transition', `branch "${branchId}" has already concluded`);
    // Only the four fields go back: no extension or unknown member may ride along.
    const members = envelopeMembers(command.payload);
    const extra = Object.keys(members).filter((k) => !ENVELOPE_OF_CONCLUSION.has(k));
    const ext = members.extensions;
    if (extra.length > 0 || (ext && typeof ext === 'object' && Object.keys(ext).length > 0)) {
      const path = extra[0] ?? 'extensions';
      return fail(
        'invalid-wire',
        `${path}: a branch returns only conclusion, artifactRefs, memoryRefs and tokenUsage (FR-4)`,
        { errors: [{ path, message: 'not allowed on branch.conclusion' }] },
      );
    }
    if (memberOf(command.payload, 'channelId') !== state.channelId)
      return fail(
        'invalid-wire',
        `channelId: branch "${branchId}" belongs to channel "${state.channelId}"`,
        {
          errors: [{ path: 'channelId', message: `must be "${state.channelId}"` }],
        },
      );
  } else if (!type.startsWith('worker.') || command.sender !== 'system') {
    return fail('invalid-transition', `"${type}" is not written on a branch`);
  }
  return accept(command);
}

function react(_before: BranchState, after: BranchState, wire: Wire): Effect[] {
  if (messageTypeOf(wire.type) !== 'branch.conclusion' || !after.channelId) return [];
  const target = `channel:${after.channelId}`;
  return [{ target, draft: copyTo(wire, target) }];
}

export const branchKind = runtimeKind<BranchState>('branch', {
  initialState: initialBranch,
  decide,
  evolve: evolveBranch,
  react,
});
