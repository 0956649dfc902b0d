import * as z from 'zod';
import {
  fail,
  type OfferedSignature,
  type Result,
  SIGNATURES_HEADER,
  Signature,
  WireId,
  WireTs,
} from '../../protocol';

/** 100 offers (a GSD batch's most events) of ~260 bytes each fit with room to spare. */
export const MAX_SIGNATURES_HEADER_BYTES = 32_768;
const MAX_OFFERS = 100;

const Offers = z
  .array(z.strictObject({ wire_id: WireId, ts: WireTs, sig: Signature }))
  .min(1, `${SIGNATURES_HEADER} must offer at least one signature`)
  .max(MAX_OFFERS, `${SIGNATURES_HEADER} may offer at most ${MAX_OFFERS} signatures`);

/**
 * The signatures a request offers for the Wires the server builds from it
 * (`kernel/signatures.ts`, `signedDraft`): none without the header, or a 400
 * that names the offer and member at fault. Nothing is appended on a bad header.
 */
export function offeredSignatures(
  header: string | undefined,
): Result<{ offers: OfferedSignature[] }> {
  if (header === undefined) return { ok: true, offers: [] };
  if (header.length > MAX_SIGNATURES_HEADER_BYTES) {
    return fail(
      'invalid-header',
      `${SIGNATURES_HEADER} is ${header.length} bytes; the limit is ${MAX_SIGNATURES_HEADER_BYTES}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(header);
  } catch {
    return fail(
      'invalid-header',
      `${SIGNATURES_HEADER} must be a JSON array of {wire_id, ts, sig}, e.g. [{"wire_id":"…","ts":"…","sig":{"kid":"…","alg":"Ed25519","value":"…","salt":"…"}}]`,
    );
  }
  const parsed = Offers.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? [])
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('');
    return fail('invalid-header', `${SIGNATURES_HEADER}${path}: ${issue?.message ?? 'invalid'}`);
  }
  return { ok: true, offers: parsed.data };
}
