import type { WirestreamClient } from '../client';
import { emit, type Output } from './format';
import { intFlag, UsageError } from './usage';

/**
 * `claim <task> --role R [--attempt N] [--lease S] [-v]`: claims the task
 * attempt and holds the lease with heartbeats until Ctrl-C, which releases
 * it. Each renewal is a line with `-v` (and always with --json); a person
 * otherwise sees the claim, a lost lease and the release.
 */
export async function claim(
  client: WirestreamClient,
  task: string,
  flags: { role?: string; attempt?: string; lease?: string; verbose?: boolean },
  output: Output,
): Promise<number> {
  if (!flags.role)
    throw new UsageError('claim needs --role <role> (the role the task is offered to)');
  const lease = await client.claim(task, {
    role: flags.role,
    attempt: intFlag('attempt', flags.attempt, 1, 1),
    leaseMs: intFlag('lease', flags.lease, 60, 1) * 1000,
    onRenewed: (at) => {
      if (output.json || flags.verbose)
        emit(output, { kind: 'renewed', lease_expires_at: at }, `lease renewed until ${at}`);
    },
    onLost: (error) =>
      emit(output, { kind: 'lost', error: error.code }, `lease lost: ${error.detail}`),
  });
  // Listening before saying "claimed": a Ctrl-C the moment the line shows
  // must release the lease, not kill the process with the lease held.
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  emit(
    output,
    {
      kind: 'claimed',
      stream_id: lease.streamId,
      fencing_token: lease.fencingToken,
      lease_expires_at: lease.expiresAt,
    },
    `claimed ${lease.streamId} with fencing token ${lease.fencingToken}, lease until ${lease.expiresAt} (Ctrl-C releases${flags.verbose ? '' : '; -v shows each renewal'})`,
  );
  const check = setInterval(() => {
    if (lease.lost) stop();
  }, 250);
  await stopped;
  clearInterval(check);
  if (lease.lost) return 1;
  await lease.release('released from the CLI');
  emit(output, { kind: 'released' }, 'released');
  return 0;
}
