import { SELF } from 'cloudflare:test';
import { Validator } from '@cfworker/json-schema';
import { OPENAPI_JSON } from '../../../src/api/openapi.gen';

/**
 * Checks real answers against the OpenAPI document the Worker serves: the
 * status must be documented for the operation, the content type must be one
 * it lists, and the body must match its JSON Schema (2020-12, by
 * @cfworker/json-schema, which interprets schemas instead of compiling them
 * to code: workerd forbids eval). Every call is recorded, so a test can tell
 * which operations were never exercised.
 */

type Json = Record<string, unknown>;
export type Method = 'get' | 'post' | 'put' | 'delete';

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: Json }>;
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
}

export const DOC = JSON.parse(OPENAPI_JSON) as {
  openapi: string;
  paths: Record<string, Partial<Record<Method, OperationObject>>>;
  components: Json;
};

/** `METHOD template` → statuses seen. */
export const seen = new Map<string, Set<number>>();

export function documentedOperations(): { method: Method; path: string; statuses: string[] }[] {
  return Object.entries(DOC.paths).flatMap(([path, item]) =>
    (Object.keys(item) as Method[]).map((method) => ({
      method,
      path,
      statuses: Object.keys(item[method]?.responses ?? {}),
    })),
  );
}

/** A response object, following `#/components/responses/…`. */
function resolveResponse(response: ResponseObject | undefined): ResponseObject | undefined {
  if (!response?.$ref) return response;
  const name = response.$ref.replace('#/components/responses/', '');
  return (DOC.components.responses as Record<string, ResponseObject> | undefined)?.[name];
}

const validators = new Map<string, Validator>();

function validatorFor(key: string, schema: Json): Validator {
  let v = validators.get(key);
  if (!v) {
    // The schema's `#/components/...` refs resolve against this root.
    v = new Validator({ ...schema, components: DOC.components }, '2020-12', false);
    validators.set(key, v);
  }
  return v;
}

/** Does `url`'s path fit the template (`{param}` = one segment, `{…_path}` one or more)? */
function fits(template: string, url: string): boolean {
  const path = new URL(url, 'https://ws.test').pathname;
  const pattern = template.replace(/\{[^}]+_path\}/g, '.+').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** Every way `value` breaks the documented answer schema; [] when it conforms. */
export function violations(
  method: Method,
  template: string,
  status: number,
  mediaType: string | null,
  value: unknown,
): string[] {
  const op = DOC.paths[template]?.[method];
  if (!op) return [`${method.toUpperCase()} ${template} is not in the document`];
  const response = resolveResponse(op.responses[String(status)]);
  if (!response) {
    return [
      `status ${status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(op.responses).join(', ')})`,
    ];
  }
  if (!response.content) return mediaType === null ? [] : [`${status} documents no body`];
  const media = response.content[mediaType ?? ''];
  if (!media) {
    return [
      `content type ${mediaType} is not documented for ${status} (documented: ${Object.keys(response.content).join(', ')})`,
    ];
  }
  if (!media.schema) return [];
  const key = `${method} ${template} ${status} ${mediaType}`;
  const result = validatorFor(key, media.schema).validate(value);
  if (result.valid) return [];
  // The innermost errors say most; the outer ones only point at them.
  return result.errors
    .map((e) => `${e.instanceLocation}: ${e.error}`)
    .reverse()
    .slice(0, 12);
}

export interface Checked {
  res: Response;
  status: number;
  /** Parsed JSON body (NDJSON: the array of lines; none: null). */
  body: unknown;
}

/**
 * Sends a request through the Worker and checks its answer against the
 * document, recording the operation as exercised. Throws (failing the test)
 * when the answer does not match.
 */
export async function call(
  method: Method,
  template: string,
  url: string,
  init: RequestInit = {},
): Promise<Checked> {
  if (!fits(template, url)) throw new Error(`${url} does not fit ${template}`);
  const res = await SELF.fetch(`https://ws.test${url}`, { ...init, method: method.toUpperCase() });
  const contentType = res.headers.get('Content-Type');
  const mediaType = contentType ? (contentType.split(';')[0]?.trim() ?? null) : null;
  let body: unknown = null;
  let problems: string[];
  if (res.status === 101) {
    problems = violations(method, template, 101, null, null);
  } else if (mediaType === 'application/octet-stream' && res.status < 400) {
    // Bytes (log tiles, artifact content): the type and status are what can be checked.
    body = new Uint8Array(await res.arrayBuffer());
    problems = violations(method, template, res.status, mediaType, null);
  } else {
    const text = new TextDecoder().decode(await res.arrayBuffer());
    if (mediaType === 'application/x-ndjson') {
      const lines = text
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as unknown);
      body = lines;
      problems = lines.flatMap((line, i) =>
        violations(method, template, res.status, mediaType, line).map((p) => `line ${i}: ${p}`),
      );
    } else if (mediaType?.startsWith('text/')) {
      body = text;
      problems = violations(method, template, res.status, mediaType, body);
    } else {
      body = text.length > 0 ? (JSON.parse(text) as unknown) : null;
      problems = violations(method, template, res.status, mediaType, body);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `${method.toUpperCase()} ${url} → ${res.status} breaks the document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 1500)}`,
    );
  }
  const key = `${method.toUpperCase()} ${template}`;
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)?.add(res.status);
  return { res, status: res.status, body };
}

/** Frames of an open WebSocket, each checked against the document's `ServerFrame`. */
export function frameViolations(frame: unknown): string[] {
  const schema = { $ref: '#/components/schemas/ServerFrame' };
  const result = validatorFor('ServerFrame', schema).validate(frame);
  return result.valid ? [] : result.errors.map((e) => `${e.instanceLocation}: ${e.error}`);
}
