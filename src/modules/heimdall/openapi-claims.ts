import * as z from 'zod';
import { AUTH, type Operation, Time } from '../../api/openapi-kit';
import { op, readOp, WRITE, WS } from './openapi-shared';
import { ClaimBody, ForceReleaseBody, ReleaseBody, RenewBody } from './routes/claims';

/** The surface claims' routes (`surfaces:<ws>` streams), as the OpenAPI document describes them. */

const CLAIM_ID = {
  ...WS,
  claim_id: z.string().meta({ description: 'A claim id (the wire_id of its `surface.claim`)' }),
};

const Claim = z.object({
  claim_id: z.string(),
  haid: z.string(),
  surfaces: z.array(z.string()),
  task: z.string(),
  task_ref: z.string().meta({ description: '`<task>@<haid>`' }),
  mode: z.enum(['exclusive', 'shared']),
  claimed_at: Time,
  expires_at: Time,
});
const ClaimAnswer = z.object({ claim: Claim });
const Released = z.looseObject({ released: z.array(z.string()) });
const Refusal = z.looseObject({ holder: z.string(), holder_claim_id: z.string() });

export const CLAIM_OPERATIONS: Operation[] = [
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/claims',
    operationId: 'makeSurfaceClaim',
    summary: 'Claim path globs for a task, through the collision gate',
    description:
      'Refused (409 `surface-collision`, naming `holder`, `surfaces`, `task`, `claim_id`, `expires_at`) when one of the globs can match a path that a live claim of another identity can match (exclusive claims collide with every claim, shared with exclusive ones). Unsupported glob syntax is a 422 `invalid-glob` naming the glob; so are globs that expand to more than 128 brace alternatives in all (naming `surfaces`).',
    pathParams: WS,
    body: { schema: ClaimBody, required: true },
    answers: { 201: { description: 'Granted', schema: ClaimAnswer } },
    problems: [...WRITE, 'invalid-glob', 'surface-collision'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/claims',
    operationId: 'listSurfaceClaims',
    summary: 'Live surface claims',
    pathParams: WS,
    answer: ['Live claims, oldest first', z.object({ claims: z.array(Claim), count: z.int() })],
    problems: [...AUTH, 'invalid-workspace'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/claims/refusals',
    operationId: 'listSurfaceRefusals',
    summary: 'The latest refusals of the collision gate (20), and their count',
    pathParams: WS,
    answer: ['Refusals, newest last', z.object({ refusals: z.array(Refusal), refused: z.int() })],
    problems: [...AUTH, 'invalid-workspace'],
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/claims/release',
    operationId: 'releaseSurfaceClaims',
    summary: "Release every live claim of an identity (the caller's own or a sub-identity)",
    pathParams: WS,
    body: { schema: ReleaseBody, required: true },
    answers: { 200: { description: 'The claims released', schema: Released } },
    problems: WRITE,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/claims/{claim_id}/renew',
    operationId: 'renewSurfaceClaim',
    summary: 'Renew a live claim for ttl_minutes from now (holder only)',
    pathParams: CLAIM_ID,
    body: { schema: RenewBody, required: true },
    answers: { 200: { description: 'The renewed claim', schema: ClaimAnswer } },
    problems: [...WRITE, 'claim-not-found', 'not-claim-holder'],
  }),
  op({
    method: 'delete',
    path: '/v1/workspaces/{ws}/claims/{claim_id}',
    operationId: 'releaseSurfaceClaim',
    summary: 'Release one claim (holder only)',
    pathParams: CLAIM_ID,
    answers: { 200: { description: 'Released', schema: Released } },
    problems: [...AUTH, 'invalid-workspace', 'claim-not-found', 'not-claim-holder'],
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/claims/{claim_id}/force-release',
    operationId: 'forceReleaseSurfaceClaim',
    summary: 'Force-release a claim with a reason (admin token only)',
    scope: 'admin',
    pathParams: CLAIM_ID,
    body: { schema: ForceReleaseBody, required: true },
    answers: { 200: { description: 'Released', schema: Released } },
    problems: [...WRITE, 'claim-not-found'],
  }),
];
