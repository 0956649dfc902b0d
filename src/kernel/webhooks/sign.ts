import { fromBase64, toBase64 } from '../../protocol/base64';

/**
 * Standard Webhooks signatures, made with WebCrypto (no Node crypto in the
 * Worker): `webhook-signature` is `v1,<base64 HMAC-SHA256>` over
 * `<webhook-id>.<webhook-timestamp>.<body>`, one per live secret, separated
 * by spaces, so a receiver holding either secret of a rotation verifies.
 * Secrets are `whsec_` + base64 of random bytes; the bytes are the HMAC key.
 * https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
const PREFIX = 'whsec_';

/** A fresh secret: 32 random bytes. */
export function newSecret(): string {
  return PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** Whether `secret` is `whsec_` + base64 of 24 to 64 bytes. */
export function isSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const b64 = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return false;
  const bytes = (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  return bytes >= 24 && bytes <= 64;
}

/** The `webhook-signature` header value for `body` under each secret. */
export async function signatures(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Promise<string> {
  const data = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const signed = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey(
        'raw',
        fromBase64(secret.slice(PREFIX.length)),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      );
      return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, data)))}`;
    }),
  );
  return signed.join(' ');
}
