import type { WirestreamClient } from '../client';
import { emit, type Output } from './format';
import { jwtClaims } from './jwt-claims';
import { duration } from './progress';
import { intFlag } from './usage';

export interface TokenFlags {
  sub?: string;
  scopes?: string;
  roles?: string;
  streams?: string;
  'expires-in'?: string;
}

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * `token`: without --sub, shows who the current WIRESTREAM_TOKEN is; with
 * --sub, asks the server (POST /v1/tokens, admin only) for a new token and
 * prints it alone on stdout so `export WIRESTREAM_TOKEN=$(…)` works.
 */
export async function token(
  client: WirestreamClient,
  current: string | undefined,
  flags: TokenFlags,
  output: Output,
): Promise<number> {
  if (flags.sub === undefined) {
    if (!current) {
      output.err(
        'no WIRESTREAM_TOKEN set; mint one with: wirestream token --sub agent:<id> --scopes append,read',
      );
      return 1;
    }
    const claims = jwtClaims(current);
    emit(
      output,
      claims ?? { opaque: true },
      claims ? describe(claims) : 'an opaque token (admin secret?)',
    );
    return 0;
  }
  const body = {
    sub: flags.sub,
    scopes: list(flags.scopes) ?? ['append', 'read', 'claim'],
    ...(flags.roles ? { roles: list(flags.roles) } : {}),
    ...(flags.streams ? { streams: list(flags.streams) } : {}),
    ...(flags['expires-in'] !== undefined
      ? { expires_in: intFlag('expires-in', flags['expires-in'], 0, 1) }
      : {}),
  };
  const res = await client.http.request<{ token: string; expires_at: string }>(
    'POST',
    '/v1/tokens',
    {
      body,
      retry: false,
    },
  );
  emit(output, res.body, res.body.token);
  if (!output.json) output.err(`token for ${flags.sub}, expires ${res.body.expires_at}`);
  return 0;
}

const listed = (value: unknown, none: string) =>
  Array.isArray(value) && value.length > 0 ? value.join(', ') : none;

/** Who a token is, one field a line: subject, scopes, roles, streams, expiry. */
function describe(claims: Record<string, unknown>): string {
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  const left =
    exp === undefined
      ? ''
      : ` (${exp > Date.now() ? 'in' : 'expired'} ${duration(Math.abs(exp - Date.now()) / 1000)}${exp > Date.now() ? '' : ' ago'})`;
  return [
    `subject  ${String(claims.sub)}`,
    `scopes   ${listed(claims.scopes, '?')}`,
    `roles    ${listed(claims.roles, 'none')}`,
    `streams  ${listed(claims.streams, 'all')}`,
    `expires  ${exp === undefined ? 'never' : new Date(exp).toISOString()}${left}`,
  ].join('\n');
}
