import { type Context, Hono } from 'hono';
import {
  type AppEnv,
  bodyProblem,
  principalOf,
  problem,
  readJsonBody,
  requireScope,
  requireStream,
} from '../../../api/module-kit';
import { wireMaxBytes } from '../../../env';
import type { AppendResult } from '../../../kernel/kind';
import { type Draft, type Failure, fail, type Payload } from '../../../protocol';
import { RUN_CREATED } from '../catalogue';
import { RunId, runStream } from '../ids';
import { ActorMessage, CreateRun, wireOf } from '../messages';
import { commitMessage } from './commit';

/**
 * `POST /v1/runs` creates a run; `POST /v1/runs/{run_id}/messages` hands one
 * actor message to the run's writer authority and answers its verdict.
 * A `WriterReject` is a protocol answer, not an HTTP error: it is stored with
 * the message (201, or 200 on a retry) like a `WriterAck`. HTTP errors
 * (4xx problem+json) are for messages that never reach the run: malformed,
 * naming no run, from no party to it, unauthenticated. Nothing is stored then.
 */
export const runs = new Hono<AppEnv>();

/** The creation Wire's fixed id: a run is created once; the same body again is a replay. */
export const CREATED_WIRE_ID = 'run-created';

function runIdProblem(c: Context<AppEnv>): Failure | null {
  const parsed = RunId.safeParse(c.req.param('run_id'));
  return parsed.success
    ? null
    : fail('invalid-query', `path run_id: ${parsed.error.issues[0]?.message}`);
}

async function readBody(c: Context<AppEnv>) {
  return readJsonBody(c, wireMaxBytes(c.env));
}

runs.post('/runs', async (c) => {
  const denied = requireScope(c, 'append');
  if (denied) return denied;
  const body = await readBody(c);
  if (!body.ok) return problem(c, body);
  const parsed = CreateRun.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const { ts, correlation, ...payload } = parsed.data;
  const streamId = runStream(payload.run_id);
  const outside = requireStream(c, streamId);
  if (outside) return outside;
  const draft: Draft = {
    wire: '1.1',
    wire_id: CREATED_WIRE_ID,
    stream_id: streamId,
    correlation_id: correlation ?? null,
    causation_id: null,
    type: RUN_CREATED,
    sender: principalOf(c).sub,
    ts: ts ?? new Date().toISOString(),
    payload,
  };
  const result = await commitMessage(c, draft, ts === undefined);
  if (!result.ok) {
    if (result.code === 'wire-id-conflict')
      return problem(
        c,
        fail(
          'run-exists',
          `run ${payload.run_id} exists already with other sections or capabilities`,
        ),
      );
    return problem(c, result);
  }
  return c.json(
    {
      run_id: payload.run_id,
      stream_id: streamId,
      revision: 0,
      receipt: receiptOf(result),
    },
    result.status,
    result.replay ? { 'Idempotent-Replay': 'true' } : {},
  );
});

function receiptOf(result: Extract<AppendResult, { ok: true }>) {
  const { stream_id, stream_seq, received_at } = result.receipt;
  return { stream_id, stream_seq, received_at };
}

/** run_id is the only control key: a body that names its run otherwise is told so. */
function controlKeyProblem(body: unknown, pathRunId: string): Failure | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const fields = body as Record<string, unknown>;
  if (fields.run_id === undefined) {
    const other = ['task_id', 'correlation_id', 'correlation'].filter(
      (k) => fields[k] !== undefined,
    );
    const detail =
      other.length > 0
        ? `run_id: required; run_id is the only control key, a message that names its run by ${other.join(' or ')} alone is refused (correlation may ride along for diagnostics)`
        : 'run_id: required (the only control key of a run)';
    return fail('invalid-body', detail, { errors: [{ path: 'run_id', message: 'required' }] });
  }
  if (fields.run_id !== pathRunId) {
    return fail(
      'invalid-body',
      `run_id: ${String(fields.run_id)} differs from the path's run ${pathRunId}`,
      {
        errors: [{ path: 'run_id', message: `must be ${pathRunId}, the run of the path` }],
      },
    );
  }
  return null;
}

runs.post('/runs/:run_id/messages', async (c) => {
  const badId = runIdProblem(c);
  if (badId) return problem(c, badId);
  const runId = c.req.param('run_id');
  const denied = requireScope(c, 'append') ?? requireStream(c, runStream(runId));
  if (denied) return denied;
  const body = await readBody(c);
  if (!body.ok) return problem(c, body);
  const keyProblem = controlKeyProblem(body.body, runId);
  if (keyProblem) return problem(c, keyProblem);
  const parsed = ActorMessage.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const msg = parsed.data;
  const { type, payload } = wireOf(msg);
  const draft: Draft = {
    wire: '1.1',
    wire_id: msg.message_id,
    stream_id: runStream(runId),
    correlation_id: msg.correlation ?? null,
    causation_id: null,
    type,
    sender: principalOf(c).sub,
    ts: msg.ts ?? new Date().toISOString(),
    payload: payload as Payload,
  };
  const result = await commitMessage(c, draft, msg.ts === undefined);
  if (!result.ok) return problem(c, result);
  return c.json(answerOf(runId, msg.message_id, result), result.status, {
    ...(result.replay ? { 'Idempotent-Replay': 'true' } : {}),
    'Writer-Verdict': String(result.receipt.verdict ?? ''),
  });
});

/** The seed's `WriterAck` / `WriterReject` from the receipt the run answered. */
export function answerOf(
  runId: string,
  messageId: string,
  result: Extract<AppendResult, { ok: true }>,
) {
  const r = result.receipt;
  const receipt = receiptOf(result);
  if (r.verdict === 'WriterReject') {
    return {
      type: 'WriterReject' as const,
      run_id: runId,
      message_id: messageId,
      reason: String(r.reason),
      revision: Number(r.revision),
      receipt,
    };
  }
  return {
    type: 'WriterAck' as const,
    run_id: runId,
    message_id: messageId,
    revision: Number(r.revision),
    outcome: String(r.outcome),
    proposal_id: typeof r.proposal_id === 'string' ? r.proposal_id : null,
    receipt,
  };
}
