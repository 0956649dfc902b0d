import { describe, expect, it } from 'vitest';
import { expectNothingStored, expectProblem } from './helpers/attack';
import { post, readAll, uniqueStream, wire11 } from './helpers/wires';

// Fixtures are assembled at run time so no secret-shaped literal sits in the repo.
const hex = (n: number, c = 'a') => c.repeat(n);
const PEM = `-----BEGIN ${'PRIVATE'} KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----`;
const SECRETS: [kind: string, payload: Record<string, unknown>, path: string][] = [
  ['a PEM private key', { note: PEM }, 'payload.note'],
  ['an OpenSSH private key', { note: `-----BEGIN OPENSSH ${'PRIVATE'} KEY-----` }, 'payload.note'],
  [
    'a DER-hex Ed25519 key',
    { note: `302e020100300506032b6570${'04220420'}${hex(64)}` },
    'payload.note',
  ],
  [
    'a DER-hex ECDSA key',
    { note: `3030020100300706052b8104000a${'04220420'}${hex(64, 'b')}` },
    'payload.note',
  ],
  [
    'a Hedera raw key under a key name',
    { operator_key: `0x${hex(64, 'c')}` },
    'payload.operator_key',
  ],
  ['a Hedera key in an env line', { log: `HEDERA_PRIVATE_KEY=${hex(64, 'd')}` }, 'payload.log'],
  ['an AWS access key id', { note: `use ${'AKIA'}IOSFODNN7EXAMPLE` }, 'payload.note'],
  ['an AWS session key id', { note: `${'ASIA'}IOSFODNN7EXAMPLE` }, 'payload.note'],
  [
    'an AWS secret key',
    { env: `aws_secret_access_key = ${'wJalrXUtnFEMI/K7MDENG/bPxRfiCY'}EXAMPLEKEY` },
    'payload.env',
  ],
  ['a GitHub classic token', { note: `${'ghp'}_${hex(36, 'Z')}` }, 'payload.note'],
  ['a GitHub OAuth token', { note: `${'gho'}_${hex(36, 'Y')}` }, 'payload.note'],
  ['a GitHub fine-grained token', { note: `${'github'}_pat_${hex(30, 'X')}` }, 'payload.note'],
  ['an npm token', { note: `${'npm'}_${hex(36, 'W')}` }, 'payload.note'],
  ['a JWT', { note: `${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiJ4In0.c2ln` }, 'payload.note'],
  [
    'a bearer credential',
    { curl: `-H "Authorization: ${'Bearer'} abcdefghijklmnop1234"` },
    'payload.curl',
  ],
  [
    'a secret nested in an array',
    { steps: [{ ok: 'fine' }, { cmd: `${'ghp'}_${hex(36, 'V')}` }] },
    'payload.steps.1.cmd',
  ],
];

describe('nothing secret reaches the ledger', () => {
  it.each(SECRETS)(
    'refuses %s with 422 naming the field, before storing',
    async (_kind, payload, path) => {
      const s = uniqueStream();
      const res = await post(s, wire11(s, { type: 'agent.note', payload }));
      const problem = await expectProblem(res, 422, 'secret-in-payload');
      expect(problem.errors?.map((e) => e.path)).toEqual([path]);
      expect(problem.detail).toContain(path);
      // The value itself is never echoed back.
      expect(JSON.stringify(problem)).not.toContain(String(Object.values(payload)[0]).slice(8, 40));
      await expectNothingStored(s);
    },
  );

  it('accepts ordinary payloads: hashes, refs and prose about tokens', async () => {
    const s = uniqueStream();
    const payload = {
      artifact_ref: 'r2://artifacts/spec.md',
      sha256: hex(64, 'e'),
      note: 'rotate the npm token and the bearer auth docs; eyJ is the JWT prefix',
    };
    const res = await post(s, wire11(s, { type: 'agent.note', payload }));
    expect(res.status).toBe(201);
    expect(await readAll(s)).toHaveLength(1);
  });
});
