import * as z from 'zod';
import type { Components, Json } from './components';
import { HEADERS } from './headers';
import type { Answer, Operation } from './operation';
import { problemResponse, problemsByStatus } from './problem-responses';

function answerResponse(answer: Answer, components: Components, name: string): Json {
  const headers = answer.headers ?? [];
  if (answer.frames) {
    // A 101 has no body: the frames that follow are described by extension.
    return {
      description: answer.description,
      'x-server-frames': components.schema(
        answer.frames.server,
        'output',
        answer.frames.names?.[0] ?? 'ServerFrame',
      ),
      'x-client-frames': components.schema(
        answer.frames.client,
        'input',
        answer.frames.names?.[1] ?? 'ClientFrame',
      ),
    };
  }
  return {
    description: answer.description,
    ...(headers.length > 0
      ? {
          headers: Object.fromEntries(
            headers.map((h) => [HEADERS[h]?.name ?? h, { $ref: `#/components/headers/${h}` }]),
          ),
        }
      : {}),
    content: {
      [answer.contentType ?? 'application/json']: {
        schema: components.schema(answer.schema ?? z.unknown(), 'output', name),
      },
    },
  };
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

export function operationObject(op: Operation, components: Components): Json {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(op.pathParams ?? {})) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: components.schema(schema, 'input'),
    });
  }
  for (const [name, schema] of Object.entries(op.query ?? {})) {
    const json = components.schema(schema as z.ZodType, 'input');
    const { description, deprecated, ...rest } = json;
    parameters.push({
      name,
      in: 'query',
      required: false,
      ...(typeof description === 'string' ? { description } : {}),
      ...(deprecated === true ? { deprecated: true } : {}),
      schema: rest,
    });
  }
  if (op.websocket) {
    parameters.push({ $ref: '#/components/parameters/Upgrade' });
  }
  for (const name of op.headerParams ?? []) {
    parameters.push({ $ref: `#/components/parameters/${name}` });
  }
  // Every append a keyed agent must sign may carry signatures for the Wires it builds.
  if (op.problems.includes('signature-required')) {
    parameters.push({ $ref: '#/components/parameters/WirestreamSignatures' });
  }

  const responses: Json = {};
  for (const [status, answer] of Object.entries(op.answers)) {
    const suffix = Object.keys(op.answers).length > 1 ? status : '';
    responses[status] = answerResponse(
      answer,
      components,
      `${pascal(op.operationId)}Response${suffix}`,
    );
  }
  for (const [status, codes] of [...problemsByStatus(op.problems)].sort(([a], [b]) => a - b)) {
    // Shared by every operation that can fail the same ways: one entry each.
    const name = codes.join('.');
    components.responses[name] ??= problemResponse(codes);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }

  const security =
    op.access === 'public'
      ? []
      : op.access === 'websocket'
        ? [{ bearer: [] }, { ticket: [] }]
        : [{ bearer: [] }];
  const scope = op.scope ? `\n\nToken scope: ${op.scope}.` : '';
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description || scope ? { description: `${op.description ?? ''}${scope}`.trim() } : {}),
    security,
    ...(op.verdict ? { 'x-wirestream-verdict': true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            ...(op.body.description ? { description: op.body.description } : {}),
            content: {
              'application/json': {
                schema: components.schema(
                  op.body.schema,
                  'input',
                  `${pascal(op.operationId)}Request`,
                ),
              },
            },
          },
        }
      : {}),
    responses,
  };
}
