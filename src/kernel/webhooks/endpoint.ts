import * as z from 'zod';
import { type Failure, fail } from '../../protocol';
import { isSecret } from './sign';

/**
 * What a module (or its route) sends to register a webhook endpoint on a
 * stream. `id` is the module's own name for it (e.g. a handler name such as
 * `slack-notify`), generated when absent. `types` subscribes the endpoint to
 * the stream's Wires of those types (`*` every type, `prefix.*` a family):
 * each accepted one is delivered as `{type, timestamp, data: <the Wire>}`.
 * Without `types` it gets only what the stream's kind sends it
 * (`WebhookEffect`). `secret` is generated when absent (`whsec_…`).
 */
export const EndpointInput = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'letters, digits, . _ : - (at most 64)')
    .optional(),
  url: z.string().max(2048),
  types: z.array(z.string().min(1).max(200)).max(100).default([]),
  secret: z
    .string()
    .refine(isSecret, 'a whsec_ secret: whsec_ + base64 of 24 to 64 bytes')
    .optional(),
  description: z.string().max(500).optional(),
});
export type EndpointInput = z.input<typeof EndpointInput>;

/** An endpoint as the store hands it out (secrets never listed). */
export interface Endpoint {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  /** The live secrets' expiry (null: the current one). */
  secrets: { expires_at: string | null }[];
}

/**
 * Why `url` cannot be an endpoint, or null: it must be absolute https
 * (plain http only to 127.0.0.1 / localhost, and only where the deployment
 * allows it), with no user name or password in it.
 */
export function urlProblem(url: string, allowLocalHttp: boolean): Failure | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid('url', 'not an absolute URL');
  }
  if (parsed.username !== '' || parsed.password !== '')
    return invalid('url', 'must not carry credentials (user:password@); sign with the secret');
  if (parsed.protocol === 'https:') return null;
  const local = parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost';
  if (parsed.protocol === 'http:' && local && allowLocalHttp) return null;
  return invalid('url', 'must be https:// (http:// only to 127.0.0.1 or localhost in development)');
}

/** Whether an endpoint subscribed to `types` takes a Wire of `type`. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.some(
    (t) => t === '*' || t === type || (t.endsWith('.*') && type.startsWith(t.slice(0, -1))),
  );
}

export function invalid(field: string, message: string): Failure {
  return fail('invalid-body', `${field}: ${message}`, { errors: [{ path: field, message }] });
}
