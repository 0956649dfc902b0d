import type { Wire } from '../../protocol';
import type { StreamApi } from '../../stream/stub';
import { runDecider } from './kinds/run-decider';
import { initialRunState, type RunState } from './kinds/run-state';

/**
 * Revisions from the run's own log: canon at revision N is the fold of the
 * run stream up to the verdict that made revision N + 1 (so it shows the
 * proposals made against N too). Pure over Wires; `readRun` pages them out
 * of the run's Durable Object, so a read right after an ack sees it.
 */
export function snapshots(
  wires: Iterable<Wire>,
  wanted: ReadonlySet<number>,
): {
  at: Map<number, RunState>;
  latest: RunState;
} {
  const at = new Map<number, RunState>();
  let state = initialRunState();
  for (const wire of wires) {
    const next = runDecider.evolve(state, wire, null);
    if (next.revision !== state.revision && wanted.has(state.revision))
      at.set(state.revision, state);
    state = next;
  }
  if (wanted.has(state.revision)) at.set(state.revision, state);
  return { at, latest: state };
}

const PAGE = 1000;

/** Every Wire of a run stream, in order. */
export async function readRun(stream: StreamApi): Promise<Wire[]> {
  const all: Wire[] = [];
  for (let after = 0; ; ) {
    const page = await stream.read(after, PAGE);
    for (const w of page.wires) {
      all.push({
        wire: w.wire,
        wire_id: w.wire_id,
        stream_id: w.stream_id,
        stream_seq: w.stream_seq,
        correlation_id: w.correlation_id,
        causation_id: w.causation_id,
        type: w.type,
        sender: w.sender,
        ts: w.ts,
        payload: w.payload,
      });
    }
    const last = page.wires.at(-1)?.stream_seq;
    if (last === undefined || last >= page.last_seq) return all;
    after = last;
  }
}

/** What `GET …/document` shows of a state: canon, proposals apart, who made it. */
export function documentView(state: RunState, latestRevision: number) {
  const run = state.run;
  const madeBy = state.history.find((h) => h.revision === state.revision) ?? null;
  return {
    run_id: run?.run_id ?? '',
    revision: state.revision,
    latest_revision: latestRevision,
    writer: run?.writer ?? null,
    conductors: run?.conductors ?? [],
    workers: run?.workers ?? [],
    made_by: madeBy,
    document: state.doc,
    proposals: Object.values(state.proposals).map(({ change, ...p }) => ({ ...p, change })),
  };
}

/** The revision list: revision 0 (the creation), then who and which message made each. */
export function revisionsView(state: RunState, createdWireId: string) {
  const run = state.run;
  return {
    run_id: run?.run_id ?? '',
    latest_revision: state.revision,
    revisions: [
      {
        revision: 0,
        message_id: createdWireId,
        message_type: 'run.created',
        sender: run?.created_by ?? '',
        source_worker_id: null,
        proposal_id: null,
        section: null,
        at: run?.created_at ?? '',
      },
      ...state.history,
    ],
  };
}
