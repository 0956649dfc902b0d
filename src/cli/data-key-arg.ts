import { existsSync, readFileSync } from 'node:fs';
import { parseBase64, parseBase64Url } from '../protocol/base64';
import { UsageError } from './usage';

/**
 * `--data-key`: a private project's data key, as `POST
 * /v1/admin/private-keys/export` answers it — a file holding that JSON
 * (`{"kid":"dk-…","key":"<base64url of 32 bytes>",…}`), the JSON itself, or
 * `<kid>:<base64url of 32 bytes>`. Anything else is a usage error naming the
 * argument.
 */
export interface DataKeyArg {
  kid: string;
  key: CryptoKey;
}

const KID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function bad(why: string): UsageError {
  return new UsageError(
    `--data-key: ${why} (give the file POST /v1/admin/private-keys/export answered, its JSON, or <kid>:<base64url of the 32-byte key>)`,
  );
}

function fields(text: string): { kid: unknown; key: unknown } {
  if (!text.startsWith('{')) {
    const colon = text.indexOf(':');
    if (colon < 1) throw bad('not JSON and not <kid>:<key>');
    return { kid: text.slice(0, colon), key: text.slice(colon + 1) };
  }
  try {
    return JSON.parse(text) as { kid: unknown; key: unknown };
  } catch {
    throw bad('not valid JSON');
  }
}

export async function dataKeyArg(value: string): Promise<DataKeyArg> {
  const text = (existsSync(value) ? readFileSync(value, 'utf8') : value).trim();
  const { kid, key } = fields(text);
  if (typeof kid !== 'string' || !KID.test(kid)) throw bad('no data key id ("kid")');
  const raw = typeof key === 'string' ? (parseBase64Url(key) ?? parseBase64(key)) : null;
  if (raw?.length !== 32) throw bad(`the key of ${kid} is not 32 bytes in base64url`);
  const imported = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['decrypt']);
  return { kid, key: imported };
}

/** The `dataKey` of `verifyAnchoredWire`: this key for its kid, a clear refusal for any other. */
export function dataKeyLookup(given: DataKeyArg) {
  return (kid: string): CryptoKey => {
    if (kid !== given.kid)
      throw new Error(
        `--data-key holds data key ${given.kid}, but this Wire is sealed under ${kid}`,
      );
    return given.key;
  };
}
