import { type Context, Hono } from 'hono';
import {
  type AppEnv,
  intQuery,
  optionalIntQuery,
  parseQuery,
  problem,
  requireStream,
} from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { documentDiff } from '../document';
import { documentView, readRun, revisionsView, snapshots } from '../history';
import { RunId, runStream } from '../ids';
import { CREATED_WIRE_ID } from './runs';

/**
 * Reading a run: canon at any revision with its proposals, the revision
 * list, the diff between two revisions. Served from the run's own log (its
 * Durable Object), so a reader that just heard a `WriterAck {revision: N}`
 * reads revision N at once; `writer_runs` in D1 holds the same, derived.
 */
export const readRuns = new Hono<AppEnv>();

const Revision = optionalIntQuery(0, Number.MAX_SAFE_INTEGER);
export const DocumentQuery = {
  revision: Revision.meta({ description: 'A canon revision (default: the latest)' }),
};
const NoQuery = {};
export const DiffQuery = {
  from: intQuery(0, Number.MAX_SAFE_INTEGER, 0).meta({
    description: 'The older revision (default 0)',
  }),
  to: Revision.meta({ description: 'The newer revision (default: the latest)' }),
};

async function loadRun(c: Context<AppEnv>, wanted: number[]) {
  const id = RunId.safeParse(c.req.param('run_id'));
  if (!id.success)
    return {
      response: problem(c, fail('invalid-query', `path run_id: ${id.error.issues[0]?.message}`)),
    };
  const streamId = runStream(id.data);
  const denied = requireStream(c, streamId);
  if (denied) return { response: denied };
  const wires = await readRun(streamStub(c.env, streamId));
  const folded = snapshots(wires, new Set(wanted));
  if (!folded.latest.run) {
    return {
      response: problem(
        c,
        fail('run-not-found', `run ${id.data} does not exist; create it with POST /v1/runs`),
      ),
    };
  }
  return { folded };
}

function noRevision(c: Context<AppEnv>, revision: number, latest: number): Response {
  return problem(
    c,
    fail(
      'revision-not-found',
      `revision ${revision} does not exist; run revisions go from 0 to ${latest}`,
      {
        extra: { latest_revision: latest },
      },
    ),
  );
}

readRuns.get('/runs/:run_id/document', async (c) => {
  const parsed = parseQuery(c, DocumentQuery);
  if (!parsed.ok) return problem(c, parsed);
  const wanted = parsed.query.revision;
  const loaded = await loadRun(c, wanted === undefined ? [] : [wanted]);
  if (!loaded.folded) return loaded.response;
  const { at, latest } = loaded.folded;
  const state = wanted === undefined ? latest : at.get(wanted);
  if (!state) return noRevision(c, wanted ?? 0, latest.revision);
  return Response.json(documentView(state, latest.revision), {
    headers: { ETag: `"${state.revision}"` },
  });
});

readRuns.get('/runs/:run_id/revisions', async (c) => {
  const parsed = parseQuery(c, NoQuery);
  if (!parsed.ok) return problem(c, parsed);
  const loaded = await loadRun(c, []);
  if (!loaded.folded) return loaded.response;
  return Response.json(revisionsView(loaded.folded.latest, CREATED_WIRE_ID));
});

readRuns.get('/runs/:run_id/diff', async (c) => {
  const parsed = parseQuery(c, DiffQuery);
  if (!parsed.ok) return problem(c, parsed);
  const { from, to } = parsed.query;
  const loaded = await loadRun(c, to === undefined ? [from] : [from, to]);
  if (!loaded.folded) return loaded.response;
  const { at, latest } = loaded.folded;
  const a = at.get(from);
  const b = to === undefined ? latest : at.get(to);
  if (!a) return noRevision(c, from, latest.revision);
  if (!b) return noRevision(c, to ?? 0, latest.revision);
  const made = latest.history.filter((h) => h.revision > a.revision && h.revision <= b.revision);
  return Response.json({
    run_id: latest.run?.run_id,
    from: a.revision,
    to: b.revision,
    ops: documentDiff(a.doc, b.doc),
    made_by: made,
  });
});
