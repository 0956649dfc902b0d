import { type RunCreateInput, RunsClient, type WirestreamClient } from '../client';
import { emit, type Output } from './format';
import { intFlag, jsonArg, UsageError } from './usage';

/**
 * `wirestream run <run_id> …`, seed 002's run documents:
 * `--create JSON` creates the run (sections, writer, conductors, workers);
 * `--message JSON` sends one actor message to the run's writer (the
 * harness's `message_actor`) and prints its WriterAck / WriterReject (exit 1
 * on a reject); `--request KIND [--payload JSON]` is `request_conductor`;
 * `--revisions` lists the revisions; otherwise the document, at
 * `--revision N` or the latest.
 */
export interface RunFlags {
  create?: string;
  message?: string;
  request?: string;
  payload?: string;
  revisions?: boolean;
  revision?: string;
}

function objectArg(flag: string, text: string, example: string): Record<string, unknown> {
  const value = jsonArg(flag, text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${flag} must be a JSON object such as ${example}`);
  }
  return value as Record<string, unknown>;
}

export async function run(
  client: WirestreamClient,
  runId: string,
  flags: RunFlags,
  output: Output,
): Promise<number> {
  const runs = new RunsClient(client);
  const chosen = ['create', 'message', 'request', 'revisions'].filter(
    (f) => flags[f as keyof RunFlags] !== undefined,
  );
  if (chosen.length > 1) {
    throw new UsageError(`--${chosen.join(' and --')} cannot be combined: give one`);
  }
  if (flags.create !== undefined) {
    const body = objectArg(
      '--create',
      flags.create,
      '{"writer":"agent:w","sections":[{"id":"a"}]}',
    );
    const created = await runs.create({ ...body, run_id: runId } as unknown as RunCreateInput);
    emit(output, created, `run ${created.run_id} created at revision ${created.revision}`);
    return 0;
  }
  if (flags.message !== undefined || flags.request !== undefined) {
    const verdict =
      flags.request !== undefined
        ? await runs.requestConductor(
            runId,
            flags.request,
            flags.payload === undefined ? {} : objectArg('--payload', flags.payload, '{"k":1}'),
          )
        : await runs.messageActor(
            runId,
            objectArg('--message', flags.message ?? '', '{"type":"WriterAppendNote",…}') as {
              type: string;
            },
          );
    const text =
      verdict.type === 'WriterAck'
        ? `WriterAck ${verdict.message_id}: ${verdict.outcome} at revision ${verdict.revision}`
        : `WriterReject ${verdict.message_id}: ${verdict.reason}`;
    emit(output, verdict, text);
    return verdict.type === 'WriterAck' ? 0 : 1;
  }
  if (flags.revisions) {
    const list = await runs.revisions<{
      revisions: { revision: number; sender: string; message_type: string; message_id: string }[];
    }>(runId);
    const lines = list.revisions.map(
      (r) => `${r.revision}\t${r.sender}\t${r.message_type}\t${r.message_id}`,
    );
    emit(output, list, lines.join('\n'));
    return 0;
  }
  const revision =
    flags.revision === undefined ? undefined : intFlag('revision', flags.revision, 0, 0);
  const doc = await runs.document(runId, revision);
  output.out(JSON.stringify(doc, null, output.json ? undefined : 2));
  return 0;
}
