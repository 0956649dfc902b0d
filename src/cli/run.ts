import { RunsClient, type WirestreamClient } from '../client';
import { emit, type Output } from './format';
import { intFlag, jsonArg, UsageError } from './usage';

/**
 * `run <run_id> --message JSON`: one actor message to the run's writer
 * (the harness's `message_actor`), printing its WriterAck / WriterReject
 * (exit 1 on a reject). `run <run_id> [--revision N]`: the document.
 */
export async function run(
  client: WirestreamClient,
  runId: string,
  flags: { message?: string; revision?: string },
  output: Output,
): Promise<number> {
  const runs = new RunsClient(client);
  if (flags.message !== undefined) {
    const message = jsonArg('--message', flags.message);
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      throw new UsageError('--message must be a JSON object such as {"type":"WriterAppendNote",…}');
    }
    const verdict = await runs.messageActor(runId, message as { type: string });
    const text =
      verdict.type === 'WriterAck'
        ? `WriterAck ${verdict.message_id}: ${verdict.outcome} at revision ${verdict.revision}`
        : `WriterReject ${verdict.message_id}: ${verdict.reason}`;
    emit(output, verdict, text);
    return verdict.type === 'WriterAck' ? 0 : 1;
  }
  const revision =
    flags.revision === undefined ? undefined : intFlag('revision', flags.revision, 0, 0);
  const doc = await runs.document(runId, revision);
  output.out(JSON.stringify(doc, null, output.json ? undefined : 2));
  return 0;
}
