import type { Context } from 'hono';
import { type Failure, fail, type Result } from '../protocol';
import { jsonDepthProblem } from './limits/json-depth';

/** Shared: a non-streaming decode() starts afresh each call. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const JSON_MEDIA = /^application\/([a-z0-9.+-]+\+)?json$/;

/**
 * The media type rule every body shares: `application/json` (or a `+json`
 * type), and if a charset is named it is UTF-8 (RFC 8259 §8.1: JSON
 * exchanged between systems is UTF-8). Anything else is a 415 naming it.
 */
export function mediaTypeProblem(header: string | undefined): Failure | null {
  if (header === 'application/json') return null; // nearly every request: no parsing
  const type = header ?? '';
  const [media = '', ...params] = type.split(';');
  const mediaType = media.trim().toLowerCase();
  if (!JSON_MEDIA.test(mediaType)) {
    return fail(
      'unsupported-media-type',
      `Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}`,
    );
  }
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      return fail(
        'unsupported-media-type',
        `Content-Type charset must be utf-8 (JSON is UTF-8), got "${charset}"`,
      );
    }
  }
  return null;
}

/**
 * How much of a refused body of declared length (Content-Length over the
 * limit) is read and dropped rather than cut off. An upload the server stops
 * reading leaves its connection unusable: behind
 * `wrangler dev` (`npm start`), the next request on it waited ~8 s for its
 * answer. Read through, the connection stays good; nothing is kept, so the
 * cost is the bytes' transfer, bounded here. Larger bodies are cut.
 */
export const DRAIN_MAX_BYTES = 4 * 1024 * 1024;

/**
 * A refused body of declared length: read through and dropped when it is at
 * most DRAIN_MAX_BYTES (nothing kept), else cancelled.
 */
async function discard(
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  declared: number,
): Promise<void> {
  if (!reader) return;
  try {
    if (declared <= DRAIN_MAX_BYTES) {
      let read = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        read += value.byteLength;
        if (read > DRAIN_MAX_BYTES) break;
      }
    }
    await reader.cancel();
  } catch {
    // A client that went away while we read: nothing left to do.
  }
}

/**
 * Reads a request body, at most `maxBytes` of it. A declared length over the
 * limit is refused before reading; within it, the body is read whole. Without
 * one (chunked), chunk by chunk with a running count, so the body is cut off at
 * the limit instead of being buffered whole (an isolate has 128 MB). A stream that breaks
 * (the client went away, a malformed chunk, fewer bytes than its
 * Content-Length) is an expected event: a quiet 400, which nobody may hear.
 */
export async function readBodyCapped(
  request: Request,
  maxBytes: number,
): Promise<Result<{ bytes: Uint8Array }>> {
  const tooLarge = (size: string) =>
    fail(
      'envelope-too-large',
      `the envelope is ${size} bytes; the limit is ${maxBytes} bytes (send large artifacts by reference: artifact_ref + sha256)`,
      { extra: { limit_bytes: maxBytes } },
    );
  const length = request.headers.get('Content-Length');
  const declared = Number(length);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discard(request.body?.getReader(), declared);
    return tooLarge(String(declared));
  }
  const incomplete = (after: string) =>
    fail(
      'incomplete-body',
      `the body ended before it was complete ${after} (the client went away, or its framing is broken)`,
    );
  if (length !== null && Number.isInteger(declared)) {
    // Framed by a length within the limit: one native read (no stream object),
    // a fraction of the CPU of the chunk loop below (bench/limits.md). Counted
    // anyway, for a Request built in-process whose header does not match its body.
    try {
      const bytes = new Uint8Array(await request.arrayBuffer());
      return bytes.byteLength > maxBytes ? tooLarge(String(bytes.byteLength)) : { ok: true, bytes };
    } catch {
      return incomplete(`(${declared} bytes declared)`);
    }
  }
  if (!request.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Stop reading: the rest is never pulled, let alone buffered (a body of
        // unknown length is not read through, however long it would run).
        await reader.cancel().catch(() => undefined);
        return tooLarge(`more than ${maxBytes}`);
      }
      chunks.push(value);
    }
  } catch {
    return incomplete(`after ${size} bytes`);
  }
  if (chunks.length === 1 && chunks[0]) return { ok: true, bytes: chunks[0] };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * Reads a JSON request body with the checks every write shares: media type
 * and charset (415), size (413, read with a running cap), a broken stream
 * (400), syntax and nesting depth (400).
 */
export async function readJsonBody(
  c: Context,
  maxBytes: number,
): Promise<Result<{ body: unknown }>> {
  const media = mediaTypeProblem(c.req.header('Content-Type'));
  if (media) return media;
  const raw = await readBodyCapped(c.req.raw, maxBytes);
  if (!raw.ok) return raw;
  let text: string;
  try {
    text = UTF8.decode(raw.bytes);
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

/**
 * For routes whose body is optional: none at all (no Content-Type, nothing
 * sent) is `undefined`; anything sent follows every `readJsonBody` rule.
 */
export async function readOptionalJsonBody(
  c: Context,
  maxBytes: number,
): Promise<Result<{ body: unknown }>> {
  const length = c.req.header('Content-Length');
  const chunked = c.req.header('Transfer-Encoding') !== undefined;
  const sent = c.req.raw.body !== null && (chunked || (length !== undefined && length !== '0'));
  if (!sent && c.req.header('Content-Type') === undefined) return { ok: true, body: undefined };
  return readJsonBody(c, maxBytes);
}
