import * as z from 'zod';
import { AUTH, BODY, type Operation } from '../../api/openapi/operation';
import { Time } from '../../api/openapi/responses';
import type { FailureCode } from '../../protocol';
import { WorkspaceId } from './identity';
import { ClaimBody, ForceReleaseBody, ReleaseBody, RenewBody } from './routes/claims';
import { ConflictBody, DecisionBody, LogQuery } from './routes/documents';
import { BriefBody, DeltaQuery, LedgerBaselineBody, LedgerLogBody } from './routes/ledger';
import { GateReportBody } from './routes/messages';
import { PlanningArchive } from './routes/planning';
import {
  BlackboardBody,
  CapsuleBody,
  HydrateQuery,
  SymbolBody,
  SymbolsQuery,
} from './routes/workspace';
import { Name } from './workspace/payloads';

/**
 * Seed 001's routes as the OpenAPI document describes them;
 * test/workers/api-contract.test.ts calls each one.
 */

const WS = { ws: WorkspaceId.meta({ description: 'A workspace id such as `kv-m02`' }) };
const CLAIM_ID = {
  ...WS,
  claim_id: z.string().meta({ description: 'A claim id (the wire_id of its `surface.claim`)' }),
};
const TAG = 'Heimdall';

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

const WRITE: FailureCode[] = [...AUTH, ...BODY, 'invalid-body', 'invalid-workspace'];

function op(o: Omit<Operation, 'tag' | 'access'> & { access?: Operation['access'] }): Operation {
  return { tag: TAG, access: 'bearer', ...o };
}

export const CLAIM_OPERATIONS: Operation[] = [
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/claims',
    operationId: 'makeSurfaceClaim',
    summary: 'Claim path globs for a task, through the collision gate',
    description:
      'Refused (409 `surface-collision`, naming `holder`, `surfaces`, `task`, `claim_id`, `expires_at`) when one of the globs can match a path that a live claim of another identity can match (exclusive claims collide with every claim, shared with exclusive ones). Unsupported glob syntax is a 422 `invalid-glob` naming the glob.',
    pathParams: WS,
    body: { schema: ClaimBody, required: true },
    answers: { 201: { description: 'Granted', schema: ClaimAnswer } },
    problems: [...WRITE, 'invalid-glob', 'surface-collision'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/claims',
    operationId: 'listSurfaceClaims',
    summary: 'Live surface claims',
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'Live claims, oldest first',
        schema: z.object({ claims: z.array(Claim), count: z.int() }),
      },
    },
    problems: [...AUTH, 'invalid-workspace'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/claims/refusals',
    operationId: 'listSurfaceRefusals',
    summary: 'The latest refusals of the collision gate (20), and their count',
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'Refusals, newest last',
        schema: z.object({ refusals: z.array(Refusal), refused: z.int() }),
      },
    },
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

// --- the workspace ------------------------------------------------------------

const ID = (what: string) => Name.meta({ description: what });
const Entry = z.looseObject({ value: z.string(), set_by: z.string(), set_at: Time });
const Listed = (name: string) => z.array(z.object({ [name]: z.string(), value: z.string() }));
const CapsuleJson = z.object({
  id: z.string(),
  what: z.string(),
  where: z.string().nullable(),
  decision: z.string().nullable(),
  gotcha: z.string().nullable(),
  depends: z.array(z.string()),
  markdown: z.string(),
});
const Capsules = z.object({ capsules: z.array(CapsuleJson) });
const DecisionJson = z.object({
  seq: z.int(),
  title: z.string(),
  body: z.string(),
  haid: z.string(),
  at: Time,
});
const READ: FailureCode[] = [...AUTH, 'invalid-workspace'];
const text = (description: string, contentType: string) => ({
  description,
  contentType,
  schema: z.string(),
});

export const WORKSPACE_OPERATIONS: Operation[] = [
  op({
    method: 'put',
    path: '/v1/workspaces/{ws}/symbols/{id}',
    operationId: 'setSymbol',
    summary: 'Set a symbol (heimdall-resolve set); another value needs force: true',
    pathParams: { ...WS, id: ID('A symbol id such as `F12`') },
    body: { schema: SymbolBody, required: true },
    answers: {
      200: { description: 'The symbol and its history', schema: z.object({ symbol: Entry }) },
    },
    problems: [...WRITE, 'invalid-query', 'symbol-conflict'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/symbols',
    operationId: 'listSymbols',
    summary: 'The symbol table, or with ?reverse=<value> the id naming a value',
    scope: 'read',
    pathParams: WS,
    query: SymbolsQuery,
    answers: {
      200: {
        description: 'The table (or `{id, value}` for ?reverse)',
        schema: z.union([
          z.object({ protocol_version: z.string(), symbols: Listed('id') }),
          z.object({ id: z.string(), value: z.string() }),
        ]),
      },
    },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/symbols/{id}',
    operationId: 'getSymbol',
    summary: 'Resolve a symbol (heimdall-resolve F12), with its history',
    scope: 'read',
    pathParams: { ...WS, id: ID('A symbol id') },
    answers: { 200: { description: 'The symbol', schema: z.object({ symbol: Entry }) } },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'put',
    path: '/v1/workspaces/{ws}/blackboard/{key}',
    operationId: 'setBlackboard',
    summary: 'Set a blackboard fact (heimdall-blackboard set); its history is kept',
    pathParams: { ...WS, key: ID('A key such as `dev_port`') },
    body: { schema: BlackboardBody, required: true },
    answers: { 200: { description: 'The entry', schema: z.object({ entry: Entry }) } },
    problems: [...WRITE, 'invalid-query'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/blackboard',
    operationId: 'listBlackboard',
    summary: 'Every blackboard fact (heimdall-blackboard list)',
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'Key and value, by key',
        schema: z.object({ protocol_version: z.string(), entries: Listed('key') }),
      },
    },
    problems: READ,
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/blackboard/{key}',
    operationId: 'getBlackboard',
    summary: 'One blackboard fact with its history (heimdall-blackboard get)',
    scope: 'read',
    pathParams: { ...WS, key: ID('A key') },
    answers: { 200: { description: 'The entry', schema: z.object({ entry: Entry }) } },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'put',
    path: '/v1/workspaces/{ws}/capsules/{id}',
    operationId: 'writeCapsule',
    summary: 'Write a context capsule (at most 10 lines; depends must exist, no cycles)',
    pathParams: { ...WS, id: ID('A capsule id such as `w1`') },
    body: { schema: CapsuleBody, required: true },
    answers: { 200: { description: 'The capsule', schema: z.object({ capsule: CapsuleJson }) } },
    problems: [...WRITE, 'invalid-query', 'capsule-too-long', 'capsule-cycle', 'unknown-reference'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/capsules',
    operationId: 'listCapsules',
    summary: 'Every capsule',
    scope: 'read',
    pathParams: WS,
    answers: { 200: { description: 'Capsules by id', schema: Capsules } },
    problems: READ,
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/capsules/hydrate',
    operationId: 'hydrateCapsules',
    summary: 'The transitive depends closure of several capsules, dependencies first',
    scope: 'read',
    pathParams: WS,
    query: HydrateQuery,
    answers: { 200: { description: 'The closure', schema: Capsules } },
    problems: [...READ, 'invalid-query', 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/capsules/{id}',
    operationId: 'getCapsule',
    summary: 'One capsule (the MCP tool read_capsules)',
    scope: 'read',
    pathParams: { ...WS, id: ID('A capsule id') },
    answers: { 200: { description: 'The capsule', schema: z.object({ capsule: CapsuleJson }) } },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/capsules/{id}/hydrate',
    operationId: 'hydrateCapsule',
    summary: 'Hydrate a capsule: exactly its depends closure, dependencies first',
    scope: 'read',
    pathParams: { ...WS, id: ID('A capsule id') },
    answers: { 200: { description: 'The closure', schema: Capsules } },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/capsules/{id}/deps',
    operationId: 'capsuleDeps',
    summary: 'The closure ids only (heimdall-capsule deps)',
    scope: 'read',
    pathParams: { ...WS, id: ID('A capsule id') },
    answers: {
      200: {
        description: 'Ids, dependencies first',
        schema: z.object({ ids: z.array(z.string()) }),
      },
    },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/briefs',
    operationId: 'buildBrief',
    summary:
      'Build a delta brief: spec + named symbols + capsule closure + invariants ref; logs its tokens',
    pathParams: WS,
    body: { schema: BriefBody, required: true },
    answers: {
      200: {
        description: 'The brief of a dry run (nothing stored or logged)',
        schema: z.looseObject({ brief: z.looseObject({ text: z.string() }), tokens: z.int() }),
      },
      201: {
        description: 'The brief, its tokens logged to the ledger',
        schema: z.looseObject({ brief: z.looseObject({ text: z.string() }), tokens: z.int() }),
      },
    },
    problems: [...WRITE, 'unknown-reference'],
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/ledger/log',
    operationId: 'ledgerLog',
    summary: 'Log a token cost by role (heimdall-ledger log)',
    pathParams: WS,
    body: { schema: LedgerLogBody, required: true },
    answers: { 201: { description: 'Logged', schema: z.looseObject({ role_total: z.int() }) } },
    problems: WRITE,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/ledger/baseline',
    operationId: 'ledgerBaseline',
    summary: 'Record the v1 baseline of a role (heimdall-ledger baseline)',
    pathParams: WS,
    body: { schema: LedgerBaselineBody, required: true },
    answers: {
      200: { description: 'Recorded', schema: z.looseObject({ baseline: z.looseObject({}) }) },
    },
    problems: WRITE,
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/ledger/delta',
    operationId: 'ledgerDelta',
    summary: "The measured delta of a role, with the seed's line",
    scope: 'read',
    pathParams: WS,
    query: DeltaQuery,
    answers: {
      200: {
        description: 'Baseline, measured (sum of logged lines), percent and line',
        schema: z.object({
          role: z.string(),
          baseline: z.int(),
          measured: z.int(),
          lines: z.int(),
          delta_percent: z.int(),
          line: z.string(),
        }),
      },
    },
    problems: [...READ, 'invalid-query', 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/ledger/report',
    operationId: 'ledgerReport',
    summary: 'Per-role totals and baselines (heimdall-ledger report)',
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'Roles',
        schema: z.looseObject({ roles: z.array(z.looseObject({ role: z.string() })) }),
      },
    },
    problems: READ,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/messages',
    operationId: 'receiveMessage',
    summary: 'Post a typed message: validated on receipt; one retry, then escalation',
    description:
      'An invalid message is refused (422 `invalid-message`, `attempt` 1, `retry_allowed`); the second invalid attempt for the same `msg_id` from the same identity is refused as `message-escalated` and appends an `escalation` message and an audit line. Only the rejection (msg_id and errors) is stored, never the invalid body.',
    pathParams: WS,
    body: { schema: z.looseObject({ type: z.string() }), required: true },
    answers: {
      201: { description: 'Accepted', schema: z.looseObject({ accepted: z.literal(true) }) },
    },
    problems: [...AUTH, ...BODY, 'invalid-workspace', 'invalid-message', 'message-escalated'],
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/decisions',
    operationId: 'appendDecision',
    summary: 'Append a HAID-attributed entry to the decisions log',
    pathParams: WS,
    body: { schema: DecisionBody, required: true },
    answers: { 201: { description: 'The entry', schema: z.object({ decision: DecisionJson }) } },
    problems: WRITE,
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/decisions',
    operationId: 'listDecisions',
    summary: 'The decisions log',
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'Entries in order',
        schema: z.object({ decisions: z.array(DecisionJson) }),
      },
    },
    problems: READ,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/conflicts',
    operationId: 'raiseConflict',
    summary:
      'Author a conflict record conflicts/{date}-{id}.md, cross-linked from the decisions log',
    pathParams: WS,
    body: { schema: ConflictBody, required: true },
    answers: {
      201: {
        description: 'Its path and the decisions entry linking it',
        schema: z.object({ path: z.string(), decision_seq: z.int() }),
      },
    },
    problems: [...WRITE, 'invalid-transition'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/documents/decisions.md',
    operationId: 'decisionsDocument',
    summary: 'The decisions log as Markdown',
    scope: 'read',
    pathParams: WS,
    answers: { 200: text('decisions.md', 'text/markdown') },
    problems: READ,
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/documents/conflicts/{file}',
    operationId: 'conflictDocument',
    summary: 'A conflict record as Markdown',
    scope: 'read',
    pathParams: { ...WS, file: z.string().meta({ description: '`2026-11-25-c1.md`' }) },
    answers: { 200: text('The record', 'text/markdown') },
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/log',
    operationId: 'auditLog',
    summary:
      'The audit log: one tab-separated line per action (timestamp, mechanism, action, subject)',
    scope: 'read',
    pathParams: WS,
    query: LogQuery,
    answers: { 200: text('The last N lines', 'text/plain') },
    problems: [...READ, 'invalid-query'],
  }),
  op({
    method: 'post',
    path: '/v1/heimdall/validate',
    operationId: 'validateMessage',
    summary: 'Validate a typed message: {"valid":…,"errors":[…]} (heimdall-validate)',
    verdict: true,
    body: { schema: z.looseObject({}), required: true },
    answers: {
      200: {
        description: 'The verdict',
        schema: z.object({ valid: z.boolean(), errors: z.array(z.string()) }),
      },
    },
    problems: [...AUTH, ...BODY],
  }),
  op({
    method: 'post',
    path: '/v1/heimdall/gate-report',
    operationId: 'gateReport',
    summary:
      "Turn a gate's report.json into a gate_report message (reads gate_id, status, wave only)",
    body: { schema: GateReportBody, required: true },
    answers: {
      200: {
        description: 'The message',
        schema: z.looseObject({ message: z.looseObject({}), valid: z.boolean() }),
      },
    },
    problems: [...AUTH, ...BODY, 'invalid-body'],
  }),
  op({
    method: 'get',
    path: '/v1/schema/heimdall/message-schema.json',
    operationId: 'messageSchema',
    summary:
      'The typed-message contract: JSON Schema draft-07, $id carrying the protocol version 2.0.0',
    access: 'public',
    answers: {
      200: {
        description: 'The schema',
        contentType: 'application/schema+json',
        schema: z.looseObject({}),
      },
    },
    problems: [],
  }),
];

const PLANNING_OPERATIONS: Operation[] = [
  op({
    method: 'get',
    path: '/v1/workspaces/{ws}/export',
    operationId: 'exportPlanning',
    summary: "The workspace as the seed's .planning layout, one JSON archive {files: {path: text}}",
    scope: 'read',
    pathParams: WS,
    answers: {
      200: {
        description: 'The archive',
        schema: z.looseObject({ files: z.record(z.string(), z.string()) }),
      },
    },
    problems: READ,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/import',
    operationId: 'importPlanning',
    summary:
      'Import a .planning archive (symbols, blackboard, capsules, baselines, ledger lines with their times, and protocol.log)',
    description:
      "The archive's `protocol.log` becomes the workspace's audit log as it stands (the imported items add no lines of their own), so export → import → export gives the same files.",
    pathParams: WS,
    body: { schema: PlanningArchive, required: true },
    answers: {
      200: {
        description: 'How many items were appended, and how many audit lines came with them',
        schema: z.looseObject({ imported: z.int(), log_lines: z.int() }),
      },
    },
    problems: [
      ...WRITE,
      'unknown-reference',
      'symbol-conflict',
      'capsule-too-long',
      'capsule-cycle',
    ],
  }),
];

export const HEIMDALL_OPERATIONS: Operation[] = [
  ...CLAIM_OPERATIONS,
  ...WORKSPACE_OPERATIONS,
  ...PLANNING_OPERATIONS,
];
