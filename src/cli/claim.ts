import type { WirestreamClient } from '../client';
import { emit, type Output } from './format';

/**
 * `claim <task> --role R [--attempt N] [--lease S]`: claims the task attempt
 * and holds the lease with heartbeats until Ctrl-C, which releases it.
 */
export async function claim(
  client: WirestreamClient,
  task: string,
  flags: { role?: string; attempt?: string; lease?: string },
  output: Output,
): Promise<number> {
  if (!flags.role)
    throw new TypeError('claim needs --role <role> (the role the task is offered to)');
  const lease = await client.claim(task, {
    role: flags.role,
    attempt: Number(flags.attempt ?? '1'),
    leaseMs: Number(flags.lease ?? '60') * 1000,
    onRenewed: (at) =>
      emit(output, { kind: 'renewed', lease_expires_at: at }, `lease renewed until ${at}`),
    onLost: (error) =>
      emit(output, { kind: 'lost', error: error.code }, `lease lost: ${error.detail}`),
  });
  emit(
    output,
    {
      kind: 'claimed',
      stream_id: lease.streamId,
      fencing_token: lease.fencingToken,
      lease_expires_at: lease.expiresAt,
    },
    `claimed ${lease.streamId} with fencing token ${lease.fencingToken}, lease until ${lease.expiresAt} (Ctrl-C releases)`,
  );
  await new Promise<void>((resolve) => {
    const done = () => {
      clearInterval(check);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    const check = setInterval(() => {
      if (lease.lost) done();
    }, 250);
  });
  if (lease.lost) return 1;
  await lease.release('released from the CLI');
  emit(output, { kind: 'released' }, 'released');
  return 0;
}
