import type * as z from 'zod';
import { type FailureCode, StreamId, WireId } from '../../protocol';
import type { QueryShape } from '../query';

/** How the OpenAPI document describes one route (src/api/openapi/operations.ts lists them). */

export type Access = 'public' | 'bearer' | 'websocket';

export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** A WebSocket upgrade (101): no body, these frames instead. */
  frames?: {
    server: z.ZodType;
    client: z.ZodType;
    /** Component names of the frame schemas; `ServerFrame` / `ClientFrame` (the streams') by default. */
    names?: [server: string, client: string];
  };
  /** Default `application/json`. */
  contentType?: string;
  /** Names in the document's `components.headers`. */
  headers?: string[];
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: `/v1/streams/{stream_id}/wires`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** Scope the token needs (said in the description). */
  scope?: string;
  pathParams?: Record<string, z.ZodType>;
  query?: QueryShape;
  /** Request headers, by name in `components.parameters`. */
  headerParams?: string[];
  body?: { schema: z.ZodType; required: boolean; description?: string };
  /** Success answers by status. */
  answers: Record<number, Answer>;
  /** Problem types this operation may answer with (statuses from problem.ts). */
  problems: FailureCode[];
  /** A WebSocket upgrade: `101` plus the frames in the description. */
  websocket?: boolean;
  /**
   * The body is data to judge, not a command (a validator): a well-formed
   * request whose content is wrong gets a 2xx verdict, not a 4xx. Published as
   * `x-wirestream-verdict: true`; it stores nothing (the fuzzer holds it to that).
   */
  verdict?: boolean;
}

export const StreamIdParam = StreamId.meta({
  description: 'A stream id such as `project:kv-m02` or `task:T-1:attempt:1` (percent-encode `:`)',
});
export const WireIdParam = WireId.meta({ description: 'A wire_id (unique within its stream)' });

/** Problems any authenticated route can answer with. */
export const AUTH: FailureCode[] = ['unauthenticated', 'forbidden'];
/** Problems of reading a JSON body (src/api/read-json-body.ts). */
export const BODY: FailureCode[] = [
  'unsupported-media-type',
  'envelope-too-large',
  'incomplete-body',
  'malformed-json',
  'json-too-deep',
];

/**
 * Problems of an append whose sender may have to sign (`tokenGuards`): a keyed
 * agent's unsigned Wire (with `unsigned`, the Wire to sign), a signature that
 * does not verify, a malformed `Wirestream-Signatures`. An operation listing
 * them also documents that header.
 */
export const SIGNED: FailureCode[] = ['invalid-header', 'signature-required', 'signature-invalid'];

/** A D1 read: JSON with the freshness headers (src/api/routes/read-support.ts). */
export function readAnswer(description: string, schema: z.ZodType): Answer {
  return {
    description,
    schema,
    headers: ['CacheControl', 'Watermark', 'WatermarkReceivedAt', 'WaitFor', 'StaleModels'],
  };
}

/** A bearer `GET` with the `read` scope and one 200 answer, under `tag`. */
export function readScoped(
  tag: string,
  o: Omit<Operation, 'method' | 'tag' | 'access' | 'scope' | 'answers'> & { answer: Answer },
): Operation {
  const { answer, ...rest } = o;
  return { method: 'get', tag, access: 'bearer', scope: 'read', ...rest, answers: { 200: answer } };
}

/** A bearer `POST` with the `append` scope, under `tag`. */
export function appendScoped(
  tag: string,
  o: Omit<Operation, 'method' | 'tag' | 'access' | 'scope'>,
): Operation {
  return { method: 'post', tag, access: 'bearer', scope: 'append', ...o };
}

/**
 * A D1 read route: bearer with the `read` scope, freshness headers, and
 * `not-found` when it names one thing by path.
 */
export function readOperation(o: {
  path: string;
  operationId: string;
  summary: string;
  query: QueryShape;
  pathParams?: Record<string, z.ZodType>;
  answer: [description: string, schema: z.ZodType];
}): Operation {
  const { answer, ...rest } = o;
  return readScoped('Read models', {
    ...rest,
    answer: readAnswer(...answer),
    problems: [...AUTH, 'invalid-query', ...(o.pathParams ? (['not-found'] as const) : [])],
  });
}
