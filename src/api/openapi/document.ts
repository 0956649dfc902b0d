import * as z from 'zod';
import { type FailureCode, WireInput } from '../../protocol';
import { problemMeta, problemTable } from '../problem';
import { IfMatchSeq } from '../routes/streams';
import { HEADERS } from './headers';
import { type Answer, OPERATIONS, type Operation } from './operations';
import * as R from './responses';

/**
 * Builds the OpenAPI 3.1 document from the zod schemas the routes validate
 * with. Runs at build time only (tools/build-openapi.mjs writes the result to
 * src/api/openapi.gen.ts), so neither this file nor zod's JSON Schema code
 * weighs on the Worker.
 *
 * zod emits JSON Schema 2020-12, which OpenAPI 3.1 takes as is; the `$defs`
 * of a recursive schema (a Wire's JSON payload) are hoisted into
 * `components.schemas` so every `$ref` resolves from the document's root.
 */

type Json = Record<string, unknown>;
type Io = 'input' | 'output';

const COMPONENT = '#/components/schemas/';

class Components {
  readonly schemas: Record<string, Json> = {};
  /** Problem answers, by the problem codes they may carry. */
  readonly responses: Record<string, Json> = {};
  /** Hoisted `$defs`, by their content, so one shape gets one name. */
  readonly #byContent = new Map<string, string>();
  /** Schemas registered under a name: used again by reference. */
  readonly #named = new Map<z.ZodType, string>();

  /** `schema` as JSON Schema with its `$defs` hoisted; `name` registers it as a component. */
  schema(schema: z.ZodType, io: Io, name?: string): Json {
    const known = this.#named.get(schema);
    if (known) return { $ref: `${COMPONENT}${known}` };
    const out = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
    }) as Json;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    const renamed = new Map<string, string>();
    for (const [key, def] of Object.entries(defs)) {
      const content = JSON.stringify(def).replaceAll(`"#/$defs/${key}"`, '"#self"');
      let target = this.#byContent.get(content);
      if (!target) {
        target = this.#freshName(isJsonValue(def) ? 'JsonValue' : `${name ?? 'Shared'}Part`);
        this.#byContent.set(content, target);
      }
      renamed.set(key, target);
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const copy: Json = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
          copy[k] = `${COMPONENT}${renamed.get(v.slice('#/$defs/'.length)) ?? ''}`;
        } else {
          copy[k] = rewrite(v);
        }
      }
      return copy;
    };
    for (const [key, def] of Object.entries(defs)) {
      const target = renamed.get(key) ?? key;
      this.schemas[target] ??= rewrite(def) as Json;
    }
    const result = rewrite(out) as Json;
    if (!name) return result;
    this.schemas[name] = result;
    this.#named.set(schema, name);
    return { $ref: `${COMPONENT}${name}` };
  }

  #freshName(base: string): string {
    let name = base;
    for (let i = 2; name in this.schemas || [...this.#byContent.values()].includes(name); i++) {
      name = `${base}${i}`;
    }
    return name;
  }
}

/** zod's `z.json()`: any JSON value. */
function isJsonValue(def: Json): boolean {
  const anyOf = def.anyOf;
  return Array.isArray(anyOf) && anyOf.length === 6;
}

/** A problem code's status and title; a code with none is a bug in the route table. */
function metaOf(code: string): { status: number; title: string } {
  const meta = problemMeta(code);
  if (!meta) throw new Error(`no problem type "${code}" (api/problem.ts or a module's problems)`);
  return meta;
}

/** Statuses from problem.ts, grouped: each operation lists the types it may answer. */
function problemsByStatus(codes: FailureCode[]): Map<number, FailureCode[]> {
  const out = new Map<number, FailureCode[]>();
  for (const code of new Set(codes)) {
    const { status } = metaOf(code);
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return out;
}

const PROBLEM_JSON = 'application/problem+json';

function problemResponse(codes: FailureCode[]): Json {
  const lines = codes.map((c) => `\`/problems/${c}\`: ${metaOf(c).title}`);
  const auth = codes.includes('unauthenticated') ? ['WwwAuthenticate'] : [];
  const rate = codes.includes('rate-limited') ? ['RetryAfter'] : [];
  return {
    description: lines.join('; '),
    ...([...auth, ...rate].length > 0
      ? {
          headers: Object.fromEntries(
            [...auth, ...rate].map((h) => [
              HEADERS[h]?.name,
              { $ref: `#/components/headers/${h}` },
            ]),
          ),
        }
      : {}),
    content: {
      [PROBLEM_JSON]: {
        schema: {
          allOf: [
            { $ref: `${COMPONENT}Problem` },
            {
              properties: {
                type: { enum: codes.map((c) => `/problems/${c}`) },
                status: { const: metaOf(codes[0] ?? 'not-found').status },
              },
            },
          ],
        },
      },
    },
  };
}

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

function operationObject(op: Operation, components: Components): Json {
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

/** The whole document. `version` is package.json's. */
export function buildOpenApi(version: string): Json {
  const components = new Components();
  components.schema(R.Problem, 'output', 'Problem');
  components.schema(R.ServerFrame, 'output', 'ServerFrame');
  components.schema(R.ClientFrame, 'input', 'ClientFrame');
  components.schema(WireInput, 'input', 'WireInput');
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const item = paths[op.path] as Json;
    item[op.method] = operationObject(op, components);
  }
  const problemTypes = Object.entries(problemTable()).map(([code, meta]) => ({
    type: `/problems/${code}`,
    ...meta,
  }));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Wirestream',
      version,
      summary: 'Ordered Wire streams for fleets of AI agents, anchored to Hedera HCS',
      description: `Agents post typed event envelopes (Wires) over HTTPS; one Durable Object per stream orders them; every accepted Wire is anchored to the Hedera Consensus Service; read models are projected into D1; browsers and agents follow streams over WebSocket.

Errors are \`application/problem+json\` (RFC 9457) with a stable \`type\`; every bad input is a 4xx. The problem types:

${problemTypes.map((p) => `* \`${p.type}\` (${p.status}): ${p.title}`).join('\n')}`,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/', description: 'This deployment' }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components.schemas,
      responses: components.responses,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A token from `POST /v1/tokens` (or the deployment's ADMIN_TOKEN). Scopes: append, read, claim, admin; a token may be limited to stream prefixes. WebSocket clients may offer it as the subprotocol `wirestream.bearer.<token>` instead.",
        },
        ticket: {
          type: 'apiKey',
          in: 'query',
          name: 'ticket',
          description: 'WebSocket routes only: a one-use ticket from `POST /v1/tickets`',
        },
      },
      parameters: {
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'Append only if the stream\'s last `stream_seq` is this one (`"0"`: only to a new stream); 412 otherwise',
          schema: components.schema(IfMatchSeq, 'input'),
          example: '"12"',
        },
        Upgrade: {
          name: 'Upgrade',
          in: 'header',
          required: true,
          schema: { type: 'string', enum: ['websocket'] },
        },
      },
      headers: Object.fromEntries(
        Object.entries(HEADERS).map(([key, h]) => [
          key,
          { description: h.description, schema: h.schema },
        ]),
      ),
    },
  };
}
