import type { Env } from '../../env';
import { type Draft, type Failure, fail, invalidWire } from '../../protocol';
import type { JsonObject } from '../../protocol/dialects';
import { streamStub } from '../../stream/stub';
import { envelopeMembers } from './envelope';
import { envelopeId } from './routes/path-ids';

/** The id a spawn names in `member` of its envelope, or the invalid-wire failure naming it. */
function placeId(members: JsonObject, member: 'channelId' | 'branchId'): string | Failure {
  if (members[member] === undefined && member === 'channelId')
    return invalidWire([
      { path: member, message: 'is required: the channel the worker reports to' },
    ]);
  const id = envelopeId(members, member);
  return id.ok ? id.id : id;
}

/**
 * Where a worker is spawned must exist: an open channel and, when the
 * envelope names one, a branch of that channel that has not concluded.
 * Otherwise the worker would report to a stream that never hears it. The
 * `admit` of `runtime.worker.spawned`, so `POST /v1/workers`, the generic
 * `POST /v1/streams/worker:{id}/wires` and a spawn put on HCS directly are
 * held to the same places. (The channel's own spawns, as effects, are not
 * asked: the channel decided them.)
 */
export async function spawnPlace(env: Env, draft: Draft): Promise<Failure | null> {
  const members = envelopeMembers(draft.payload);
  const channel = placeId(members, 'channelId');
  if (typeof channel !== 'string') return channel;
  const branch = members.branchId === undefined ? null : placeId(members, 'branchId');
  if (branch !== null && typeof branch !== 'string') return branch;
  const [ch, br] = await Promise.all([
    streamStub(env, `channel:${channel}`).coordination(),
    branch ? streamStub(env, `branch:${branch}`).coordination() : null,
  ]);
  if (!(ch.state as { opened?: boolean } | null)?.opened)
    return fail('not-found', `channel "${channel}" is not open: create it with POST /v1/channels`, {
      errors: [{ path: 'channelId', message: 'is not an open channel' }],
    });
  if (!branch || !br) return null;
  const b = br.state as { status?: string; channelId?: string | null } | null;
  if (!b || b.status === 'none')
    return fail('not-found', `branch "${branch}" was never spawned`, {
      errors: [{ path: 'branchId', message: 'was never spawned' }],
    });
  if (b.channelId !== channel)
    return fail(
      'invalid-wire',
      `branchId: branch "${branch}" belongs to channel "${b.channelId}"`,
      {
        errors: [{ path: 'branchId', message: `is a branch of channel "${b.channelId}"` }],
      },
    );
  if (b.status === 'concluded')
    return fail(
      'invalid-transition',
      `branch "${branch}" has concluded: it spawns no more workers`,
      { errors: [{ path: 'branchId', message: 'has concluded' }] },
    );
  return null;
}
