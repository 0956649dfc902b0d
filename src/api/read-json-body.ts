import type { Context } from 'hono';
import { fail, type Result } from '../protocol';
import { jsonDepthProblem } from './limits/json-depth';

/** Shared: a non-streaming decode() starts afresh each call. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a JSON request body with the checks every write shares: media type
 * (415), size (413, before and after reading), syntax and nesting depth (400).
 */
export async function readJsonBody(
  c: Context,
  maxBytes: number,
): Promise<Result<{ body: unknown }>> {
  const type = c.req.header('Content-Type') ?? '';
  const mediaType = type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
    return fail(
      'unsupported-media-type',
      `Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}`,
    );
  }
  const tooLarge = (size: number) =>
    fail(
      'envelope-too-large',
      `the envelope is ${size} bytes; the limit is ${maxBytes} bytes (send large artifacts by reference: artifact_ref + sha256)`,
      { extra: { limit_bytes: maxBytes } },
    );
  const declared = Number(c.req.header('Content-Length'));
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(declared);
  const raw = await c.req.arrayBuffer();
  if (raw.byteLength > maxBytes) return tooLarge(raw.byteLength);
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    return fail('malformed-json', 'the body is not valid UTF-8');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return fail('malformed-json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  return jsonDepthProblem(body) ?? { ok: true, body };
}
