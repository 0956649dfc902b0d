import * as z from 'zod';
import { type Operation, Time } from '../../api/openapi-kit';
import { ID, op, READ, readOp, WRITE, WS } from './openapi-shared';
import {
  BlackboardBody,
  CapsuleBody,
  HydrateQuery,
  SymbolBody,
  SymbolsQuery,
} from './routes/workspace';

/** The workspace's symbols, blackboard and capsules, as the OpenAPI document describes them. */

const Entry = z.looseObject({
  value: z.string(),
  set_by: z.string(),
  set_at: Time,
  history: z
    .array(z.looseObject({ value: z.string(), by: z.string(), at: Time }))
    .optional()
    .meta({
      description:
        'The last 20 versions, oldest first (the current one last); every earlier one is a Wire of the stream workspace:<ws>',
    }),
  versions: z.int().optional().meta({ description: 'How many times it was set in all' }),
});
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

export const STATE_OPERATIONS: Operation[] = [
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
  readOp({
    path: '/v1/workspaces/{ws}/symbols',
    operationId: 'listSymbols',
    summary: 'The symbol table, or with ?reverse=<value> the id naming a value',
    pathParams: WS,
    query: SymbolsQuery,
    answer: [
      'The table (or `{id, value}` for ?reverse)',
      z.union([
        z.object({ protocol_version: z.string(), symbols: Listed('id') }),
        z.object({ id: z.string(), value: z.string() }),
      ]),
    ],
    problems: [...READ, 'not-found'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/symbols/{id}',
    operationId: 'getSymbol',
    summary: 'Resolve a symbol (heimdall-resolve F12), with its history',
    pathParams: { ...WS, id: ID('A symbol id') },
    answer: ['The symbol', z.object({ symbol: Entry })],
    problems: [...READ, 'not-found'],
  }),
  op({
    method: 'put',
    path: '/v1/workspaces/{ws}/blackboard/{key}',
    operationId: 'setBlackboard',
    summary: 'Set a blackboard fact (heimdall-blackboard set); its last 20 versions are kept',
    pathParams: { ...WS, key: ID('A key such as `dev_port`') },
    body: { schema: BlackboardBody, required: true },
    answers: { 200: { description: 'The entry', schema: z.object({ entry: Entry }) } },
    problems: [...WRITE, 'invalid-query'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/blackboard',
    operationId: 'listBlackboard',
    summary: 'Every blackboard fact (heimdall-blackboard list)',
    pathParams: WS,
    answer: [
      'Key and value, by key',
      z.object({ protocol_version: z.string(), entries: Listed('key') }),
    ],
    problems: READ,
  }),
  readOp({
    path: '/v1/workspaces/{ws}/blackboard/{key}',
    operationId: 'getBlackboard',
    summary: 'One blackboard fact with its history (heimdall-blackboard get)',
    pathParams: { ...WS, key: ID('A key') },
    answer: ['The entry', z.object({ entry: Entry })],
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
  readOp({
    path: '/v1/workspaces/{ws}/capsules',
    operationId: 'listCapsules',
    summary: 'Every capsule',
    pathParams: WS,
    answer: ['Capsules by id', Capsules],
    problems: READ,
  }),
  readOp({
    path: '/v1/workspaces/{ws}/capsules/hydrate',
    operationId: 'hydrateCapsules',
    summary: 'The transitive depends closure of several capsules, dependencies first',
    description:
      'With `ids` in the query; without it, this path reads the capsule whose id is `hydrate` (getCapsule).',
    pathParams: WS,
    query: HydrateQuery,
    answer: ['The closure', Capsules],
    problems: [...READ, 'invalid-query', 'not-found'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/capsules/{id}',
    operationId: 'getCapsule',
    summary: 'One capsule (the MCP tool read_capsules)',
    pathParams: { ...WS, id: ID('A capsule id') },
    answer: ['The capsule', z.object({ capsule: CapsuleJson })],
    problems: [...READ, 'not-found'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/capsules/{id}/hydrate',
    operationId: 'hydrateCapsule',
    summary: 'Hydrate a capsule: exactly its depends closure, dependencies first',
    pathParams: { ...WS, id: ID('A capsule id') },
    answer: ['The closure', Capsules],
    problems: [...READ, 'not-found'],
  }),
  readOp({
    path: '/v1/workspaces/{ws}/capsules/{id}/deps',
    operationId: 'capsuleDeps',
    summary: 'The closure ids only (heimdall-capsule deps)',
    pathParams: { ...WS, id: ID('A capsule id') },
    answer: ['Ids, dependencies first', z.object({ ids: z.array(z.string()) })],
    problems: [...READ, 'not-found'],
  }),
];
