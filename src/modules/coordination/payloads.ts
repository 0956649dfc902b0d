import * as z from 'zod';
import { byReference, Sha256 } from '../../protocol/payloads';

/**
 * Payload schemas for the event catalogue of seed 000. Payloads are open
 * (`looseObject`): known fields are checked, extra fields travel untouched so
 * producers can add context without a protocol bump.
 */

const Id = z.string().min(1).max(200);
const Timestamp = z.iso.datetime({ offset: true });
const Units = z.int().min(0).max(1_000_000);
const Attempt = z.int().min(1);
const ArtifactRef = z.string().min(1).max(1024);

const ReleaseOn = z.object({
  type: z.enum(['task.complete', 'contract.ready', 'artifact.ready']),
  name: z.string().min(1).max(200).optional(),
});

const TaskClaim = z.looseObject({
  task_id: Id,
  agent: Id,
  role: Id,
  lease_expires_at: Timestamp,
  capacity_units_reserved: Units.optional(),
});

export const PAYLOADS = {
  // project stream
  'project.created': z.looseObject({ project_id: Id.optional(), name: z.string().optional() }),
  'phase.created': z.looseObject({ phase_id: Id, project_id: Id.optional() }),
  'task.created': z.looseObject({ task_id: Id, role: Id, title: z.string().optional() }),
  'dependency.created': z.looseObject({
    downstream_task_id: Id,
    upstream_task_id: Id,
    release_on: ReleaseOn,
  }),
  'gate.opened': z.looseObject({ gate_id: Id }),
  'gate.passed': z.looseObject({ gate_id: Id }),
  'project.complete': z.looseObject({}),
  // task stream
  'task.available': z.looseObject({ task_id: Id, role: Id, attempt: Attempt.optional() }),
  'task.claim': TaskClaim,
  'task.claimed': TaskClaim,
  'task.started': z.looseObject({ task_id: Id, attempt: Attempt.optional() }),
  'task.plan.created': z.looseObject({ task_id: Id, plan_ref: z.string().optional() }),
  'task.blocked': z.looseObject({ task_id: Id, reason: z.string().min(1).max(2000) }),
  'task.complete': z.looseObject({
    task_id: Id,
    output_ref: z.string().optional(),
    sha256: Sha256.optional(),
  }),
  'artifact.claimed': byReference(
    z.looseObject({ artifact_id: Id.optional(), artifact_type: Id.optional() }),
  ),
  'artifact.ready': byReference(
    z.looseObject({
      artifact_type: Id,
      artifact_ref: ArtifactRef,
      sha256: Sha256,
      ready_for: z.array(z.string()).optional(),
    }),
  ),
  'contract.ready': z.looseObject({ contract: Id }),
  'review.concern': z.looseObject({
    concern: z.string().min(1).max(2000),
    severity: z.enum(['info', 'minor', 'major', 'blocking']).optional(),
  }),
  // agent stream
  'agent.started': z.looseObject({ role: Id.optional() }),
  'agent.heartbeat': z.looseObject({}),
  'agent.capacity.updated': z
    .looseObject({
      available_units: Units,
      max_units: Units,
      skills: z.array(z.string()).optional(),
    })
    .refine((p) => p.available_units <= p.max_units, {
      message: 'available_units must not exceed max_units',
      path: ['available_units'],
    }),
  'agent.lease.accepted': z.looseObject({ task_id: Id, stream_id: z.string().optional() }),
  'agent.lease.released': z.looseObject({ task_id: Id, stream_id: z.string().optional() }),
  'agent.stopped': z.looseObject({ reason: z.string().optional() }),
} as const;
