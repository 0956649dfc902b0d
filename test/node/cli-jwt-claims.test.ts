import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { jwtClaims } from '../../src/cli/jwt-claims';

describe('the CLI reading its token', () => {
  it('reads the claims of a JWT without its secret', async () => {
    const jwt = await sign({ sub: 'agent:cli-test', scopes: ['read'], exp: 2_000_000_000 }, 'x');
    expect(jwtClaims(jwt)).toEqual({ sub: 'agent:cli-test', scopes: ['read'], exp: 2_000_000_000 });
  });

  it('takes an admin secret or a broken token as opaque', () => {
    expect(jwtClaims('test-admin-token-not-for-production')).toBeNull();
    expect(jwtClaims('a.!!!.c')).toBeNull();
    expect(jwtClaims(undefined)).toBeNull();
  });
});
