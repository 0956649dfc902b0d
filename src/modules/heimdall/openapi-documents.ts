import * as z from 'zod';
import { AUTH, BODY, type Operation, readScoped, SIGNED, Time } from '../../api/openapi-kit';
import { op, READ, readOp, text, WRITE, WS } from './openapi-shared';
import { ConflictBody, DecisionBody, LogQuery } from './routes/documents';
import { BriefBody, DeltaQuery, LedgerBaselineBody, LedgerLogBody } from './routes/ledger';
import { GateReportBody } from './routes/messages';
import { PlanningArchive } from './routes/planning';

/**
 * The workspace's briefs, ledger, messages, decisions, conflicts, documents,
 * audit log and .planning archives, as the OpenAPI document describes them.
 */

const DecisionJson = z.object({
  seq: z.int(),
  title: z.string(),
  body: z.string(),
  haid: z.string(),
  at: Time,
});

export const DOCUMENT_OPERATIONS: Operation[] = [
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
  readOp({
    path: '/v1/workspaces/{ws}/ledger/delta',
    operationId: 'ledgerDelta',
    summary: "The measured delta of a role, with the seed's line",
    pathParams: WS,
    query: DeltaQuery,
    answer: [
      'Baseline, measured (sum of logged lines), percent and line',
      z.object({
        role: z.string(),
        baseline: z.int(),
        measured: z.int(),
        lines: z.int(),
        delta_percent: z.int(),
        line: z.string(),
      }),
    ],
    problems: [...READ, 'invalid-query', 'not-found'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/ledger/report',
    operationId: 'ledgerReport',
    summary: 'Per-role totals and baselines (heimdall-ledger report)',
    pathParams: WS,
    answer: ['Roles', z.looseObject({ roles: z.array(z.looseObject({ role: z.string() })) })],
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
    problems: [
      ...AUTH,
      ...BODY,
      ...SIGNED,
      'invalid-workspace',
      'invalid-message',
      'message-escalated',
    ],
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
  readOp({
    path: '/v1/workspaces/{ws}/decisions',
    operationId: 'listDecisions',
    summary: 'The decisions log',
    pathParams: WS,
    answer: ['Entries in order', z.object({ decisions: z.array(DecisionJson) })],
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
  readScoped('Heimdall', {
    path: '/v1/workspaces/{ws}/documents/decisions.md',
    operationId: 'decisionsDocument',
    summary: 'The decisions log as Markdown',
    pathParams: WS,
    answer: text('decisions.md', 'text/markdown'),
    problems: READ,
  }),
  readScoped('Heimdall', {
    path: '/v1/workspaces/{ws}/documents/conflicts/{file}',
    operationId: 'conflictDocument',
    summary: 'A conflict record as Markdown',
    pathParams: { ...WS, file: z.string().meta({ description: '`2026-11-25-c1.md`' }) },
    answer: text('The record', 'text/markdown'),
    problems: [...READ, 'not-found'],
  }),
  readScoped('Heimdall', {
    path: '/v1/workspaces/{ws}/log',
    operationId: 'auditLog',
    summary:
      'The audit log: one tab-separated line per action (timestamp, mechanism, action, subject)',
    pathParams: WS,
    query: LogQuery,
    answer: text('The last N lines', 'text/plain'),
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
  readOp({
    path: '/v1/workspaces/{ws}/export',
    operationId: 'exportPlanning',
    summary: "The workspace as the seed's .planning layout, one JSON archive {files: {path: text}}",
    pathParams: WS,
    answer: ['The archive', z.looseObject({ files: z.record(z.string(), z.string()) })],
    problems: READ,
  }),
  op({
    method: 'post',
    path: '/v1/workspaces/{ws}/import',
    operationId: 'importPlanning',
    summary:
      'Import a .planning archive (symbols, blackboard, capsules, baselines, ledger lines with their times, and protocol.log)',
    description:
      "All or nothing: every item is checked before the first is stored, and a refusal stores none of the archive (`extra.index` names the refused item, 0-based). The archive's `protocol.log` becomes the workspace's audit log as it stands (the imported items add no lines of their own), so export → import → export gives the same files. Wire ids are derived from the archive's files and the caller, so importing the same archive again is a replay (`replayed: true`), not a second copy of its items.",
    pathParams: WS,
    body: { schema: PlanningArchive, required: true },
    answers: {
      200: {
        description:
          'How many items the archive holds, how many audit lines came with them, and whether all were stored before (a replay)',
        schema: z.looseObject({ imported: z.int(), log_lines: z.int(), replayed: z.boolean() }),
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
