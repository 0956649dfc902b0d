import { sign, verify } from 'hono/jwt';
import { fail, type Result } from '../../protocol';
import { type Principal, type Scope, TokenClaims } from './claims';

/**
 * HS256 tokens through hono's JWT helpers (WebCrypto underneath).
 * https://hono.dev/docs/helpers/jwt
 */
const ALG = 'HS256';

/** Longest lifetime `POST /v1/tokens` will grant: 30 days. */
export const MAX_TOKEN_SECONDS = 30 * 24 * 3600;

export interface TokenRequest {
  sub: string;
  scopes: Scope[];
  roles?: string[];
  streams?: string[];
  purpose?: 'ws';
  expiresInSeconds: number;
}

export async function issueToken(
  secret: string,
  request: TokenRequest,
  nowSeconds: number,
): Promise<{ token: string; exp: number }> {
  const exp = nowSeconds + request.expiresInSeconds;
  const claims = {
    sub: request.sub,
    roles: request.roles ?? [],
    scopes: request.scopes,
    ...(request.streams ? { streams: request.streams } : {}),
    ...(request.purpose ? { purpose: request.purpose } : {}),
    iat: nowSeconds,
    exp,
    // Unique even for the same claims minted in the same second: a ticket's
    // digest is what the ticket ledger marks spent.
    jti: crypto.randomUUID(),
  };
  return { token: await sign(claims, secret, ALG), exp };
}

/** Checks signature, expiry and claim shape. Every failure is a 401. */
export async function verifyToken(
  secret: string,
  token: string,
): Promise<Result<{ principal: Principal }>> {
  let payload: unknown;
  try {
    payload = await verify(token, secret, ALG);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'JwtTokenExpired') return fail('unauthenticated', 'the token has expired');
    return fail('unauthenticated', 'the token is not valid (bad signature, key or format)');
  }
  const claims = TokenClaims.safeParse(payload);
  if (!claims.success) {
    return fail('unauthenticated', 'the token does not carry Wirestream claims (sub, scopes, exp)');
  }
  const { sub, roles, scopes, streams, purpose, exp } = claims.data;
  return {
    ok: true,
    principal: {
      sub,
      roles,
      scopes,
      exp,
      ...(streams ? { streams } : {}),
      ...(purpose ? { purpose } : {}),
    },
  };
}
