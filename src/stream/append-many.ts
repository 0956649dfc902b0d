import type { Hold } from '../kernel/kind';
import type { KindRunner } from '../kernel/kind-runner';
import type { Draft, Failure } from '../protocol';
import { decideWithLog } from './decide-append';
import type { WireLog } from './wire-log';

/** A refusal of one draft of a batch, naming its position (`extra.index`). */
export function withIndex(failure: Failure, index: number): Failure {
  return { ...failure, extra: { ...failure.extra, index } };
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
