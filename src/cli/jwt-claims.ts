import { decode } from 'hono/jwt';

/**
 * The claims a JWT carries, read without checking its signature (the server
 * does that on every request), or null for a token that is not a JWT, such as
 * the admin secret. https://hono.dev/docs/helpers/jwt#decode
 */
export function jwtClaims(token: string | undefined): Record<string, unknown> | null {
  if (!token) return null;
  try {
    const { payload } = decode(token);
    return typeof payload === 'object' && payload !== null ? payload : null;
  } catch {
    return null;
  }
}
