/**
 * Compares a presented secret with `ADMIN_TOKEN` in constant time: both are
 * hashed first so the comparison never depends on lengths or prefixes.
 * https://developers.cloudflare.com/workers/examples/protect-against-timing-attacks/
 */
export async function isAdminSecret(
  presented: string,
  expected: string | undefined,
): Promise<boolean> {
  if (!expected) return false;
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(presented)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
