import type { AppendResult, Hold } from '../kernel/kind';
import type { KindRunner } from '../kernel/kind-runner';
import type { Draft, Failure } from '../protocol';
import { decideWithLog } from './decide-append';
import type { AppendManyResult } from './stub';
import type { WireLog } from './wire-log';

/** A refusal of one draft of a batch, naming its position (`extra.index`). */
export function withIndex(failure: Failure, index: number): Failure {
  return { ...failure, extra: { ...failure.extra, index } };
}

/**
 * Appends `drafts` in order, all or nothing: every one is checked (replay,
 * the kind's decision against the state the earlier ones leave) before any
 * is stored, then all are stored in the same synchronous stretch. A refusal
 * carries `extra.index`, the position of the draft refused; nothing is stored.
 */
export async function appendAll(
  log: WireLog,
  kinds: Pick<KindRunner, 'prepare' | 'settle' | 'check'>,
  commitAll: (drafts: readonly Draft[], holds: readonly (Hold | null)[]) => AppendResult[],
  drafts: readonly Draft[],
): Promise<AppendManyResult> {
  const holds: (Hold | null)[] = [];
  for (const [index, draft] of drafts.entries()) {
    const hold = await kinds.prepare(draft, Date.now());
    if (hold && !hold.ok) {
      for (const [i, held] of holds.entries()) await kinds.settle(held, false, drafts[i] as Draft);
      return withIndex(hold, index);
    }
    holds.push(hold);
  }
  const refused = checkMany(log, kinds, drafts, holds);
  const results = refused ? [] : commitAll(drafts, holds);
  for (const [i, draft] of drafts.entries()) {
    await kinds.settle(holds[i] ?? null, results[i]?.ok === true, draft);
  }
  return refused ?? { ok: true, results };
}

/**
 * The dry run of `StreamObject.appendMany`: the first draft that would be
 * refused (a conflicting replay, or the kind's decision against the state the
 * earlier drafts leave), or null. Nothing is stored.
 */
export function checkMany(
  log: WireLog,
  kinds: Pick<KindRunner, 'check'>,
  drafts: readonly Draft[],
  holds: readonly (Hold | null)[],
): Failure | null {
  const fresh: { draft: Draft; hold: Hold | null; index: number }[] = [];
  for (const [index, draft] of drafts.entries()) {
    const decision = decideWithLog(log, { draft, expectedSeq: undefined, ifMatchSeq: undefined });
    if (!decision.ok) return withIndex(decision, index);
    if (decision.kind === 'append') fresh.push({ draft, hold: holds[index] ?? null, index });
  }
  const refused = kinds.check(fresh, Date.now());
  return refused && withIndex(refused.failure, fresh[refused.at]?.index ?? 0);
}
