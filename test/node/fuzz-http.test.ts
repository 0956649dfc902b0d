import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/api/auth/tokens';
import { OPENAPI_JSON } from '../../src/api/openapi.gen';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

/**
 * The HTTP fuzzer: every operation of the OpenAPI document (new routes are
 * fuzzed without new code), each request made hostile in one way, against
 * the real Worker under `wrangler dev`. Each answer must be a 4xx
 * problem+json with a detail, in time; a refused append stores nothing (so
 * nothing is broadcast or anchored). `FUZZ_RUNS` / `FUZZ_SEED` (or
 * `npm run fuzz -- --runs 10000 --seed N`) for long runs; the seed is printed.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/**
 * A fresh seed each local run (printed, to replay), so `npm test` keeps
 * exploring; under CI a fixed one, so whether a commit lands does not depend
 * on the draw (long runs with new seeds: `npm run fuzz`).
 */
const SEED = Number(
  process.env.FUZZ_SEED ?? (process.env.CI === 'true' ? 20261127 : Date.now() % 2_147_483_647),
);

interface Operation {
  method: string;
  path: string;
  queryInts: string[];
  query: string[];
  body: boolean;
  /** No credential needed (the schemas, the document): a token is not an input there. */
  public: boolean;
  /** `x-wirestream-verdict`: a validator, whose answer to wrong content is a 2xx verdict. */
  verdict: boolean;
}

const doc = JSON.parse(OPENAPI_JSON) as {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: unknown[];
        requestBody?: unknown;
        security?: unknown[];
        'x-wirestream-verdict'?: boolean;
      }
    >
  >;
};
const OPERATIONS: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => {
    const params = (op.parameters ?? []) as {
      in?: string;
      name?: string;
      schema?: { type?: string };
    }[];
    const query = params.filter((p) => p.in === 'query');
    return {
      method: method.toUpperCase(),
      path,
      query: query.map((p) => p.name ?? ''),
      queryInts: query.filter((p) => p.schema?.type === 'integer').map((p) => p.name ?? ''),
      body: op.requestBody !== undefined,
      public: Array.isArray(op.security) && op.security.length === 0,
      verdict: op['x-wirestream-verdict'] === true,
    };
  }),
);

const secret = fc.constantFrom(
  `${'AKIA'}IOSFODNN7EXAMPLE`,
  `${'ghp'}_${'Z'.repeat(36)}`,
  `-----BEGIN ${'PRIVATE'} KEY-----`,
  `302e020100300506032b6570${'04220420'}${'a'.repeat(64)}`,
  `${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiJ4In0.c2ln`,
  `${'npm'}_${'W'.repeat(36)}`,
);
const controlled = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\u0000', '\u0007', '\u001b', '\u202e', '\u2066', '\ud800', '\u0085'),
  )
  .map(([s, c]) => `a${s}${c}b`);
const extremeInt = fc.constantFrom(
  '-1',
  '1e309',
  '99999999999999999999',
  'NaN',
  '0x10',
  '1.5',
  ' 1',
  '+1',
  '9007199254740993',
);

type Mutation =
  | { kind: 'forged-token'; token: string }
  | { kind: 'stale-token' }
  | { kind: 'unknown-query'; name: string }
  | { kind: 'repeated-query' }
  | { kind: 'extreme-query'; value: string }
  | { kind: 'media-type'; type: string }
  | { kind: 'truncated'; at: number }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'hostile-field'; field: string; value: string }
  | { kind: 'hostile-number'; value: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 60 })
    .map((t) => ({ kind: 'forged-token' as const, token: `eyJ${t.replace(/\s/g, 'x')}` })),
  fc.constant({ kind: 'stale-token' as const }),
  fc
    .stringMatching(/^[a-z_]{1,12}$/)
    .map((n) => ({ kind: 'unknown-query' as const, name: `zz_${n}` })),
  fc.constant({ kind: 'repeated-query' as const }),
  extremeInt.map((value) => ({ kind: 'extreme-query' as const, value })),
  fc
    .constantFrom(
      'text/plain',
      'application/xml',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'multipart/form-data',
      '',
    )
    .map((type) => ({ kind: 'media-type' as const, type })),
  fc
    .double({ min: 0.05, max: 0.95, noNaN: true })
    .map((at) => ({ kind: 'truncated' as const, at })),
  fc
    .integer({ min: 9_000, max: 2_000_000 })
    .map((bytes) => ({ kind: 'oversized' as const, bytes })),
  fc
    .tuple(
      fc.constantFrom('wire_id', 'correlation_id', 'causation_id', 'sender', 'type', 'ts'),
      fc.oneof(secret, controlled, fc.constantFrom('', 'x'.repeat(300))),
    )
    .map(([field, value]) => ({ kind: 'hostile-field' as const, field, value })),
  fc
    .constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 2, 0.5)
    .map((value) => ({ kind: 'hostile-number' as const, value })),
);

let counter = 0;

/** A valid body for the operation, before it is made hostile. */
function validBody(op: Operation, streamId: string): Record<string, unknown> {
  if (op.path.endsWith('/wires') && op.method === 'POST') {
    return {
      wire: '1.1',
      wire_id: `fz-${counter}`,
      stream_id: streamId,
      correlation_id: null,
      causation_id: null,
      type: 'review.concern',
      sender: 'agent:fuzz',
      ts: new Date().toISOString(),
      payload: { concern: 'fuzz' },
    };
  }
  if (op.path === '/v1/tokens') return { sub: 'agent:fz', scopes: ['read'], expires_in: 3600 };
  if (op.path.endsWith('/topic')) return { topic: 'dedicated' };
  if (op.path.includes('rebuild')) return { models: ['stream_state'] };
  return {};
}

describe('HTTP fuzzer, driven from the OpenAPI document', () => {
  let server: DevServer;
  let agent: string;
  let stale: string;
  const statuses = new Map<number, number>();
  let slowest = { ms: 0, what: '' };

  beforeAll(async () => {
    server = await startDevServer();
    // wrangler dev rebuilds the client bundle once after start and reloads the Worker,
    // holding requests meanwhile: wait until its log has been quiet for 5 s.
    for (let quiet = 0, seen = server.log().length; quiet < 5; ) {
      await new Promise((r) => setTimeout(r, 1000));
      quiet = server.log().length === seen ? quiet + 1 : 0;
      seen = server.log().length;
    }
    agent = (await tokenFor(server, 'agent:fuzz')) ?? '';
    stale = (
      await issueToken(
        'not-the-server-secret',
        { sub: 'agent:fuzz', scopes: ['read', 'append'], roles: [], expiresInSeconds: 60 },
        Math.floor(Date.now() / 1000) - 7200,
      )
    ).token;
  }, 120_000);
  afterAll(async () => {
    console.log(
      `fuzz: ${RUNS} cases, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; slowest ${slowest.ms.toFixed(0)} ms (${slowest.what})`,
    );
    await server?.stop();
  });

  it(`answers every hostile request with a precise 4xx and stores nothing (seed ${SEED})`, async () => {
    console.log(`fuzz seed ${SEED} (replay: npm run fuzz -- --seed ${SEED} --runs ${RUNS})`);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATIONS), mutation, async (op, m) => {
        counter += 1;
        const streamId = `project:fz${counter}-${SEED}`;
        const admin = op.path.startsWith('/v1/admin') || op.path === '/v1/tokens';
        let token = admin ? server.adminToken : agent;
        const path = op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
          encodeURIComponent(name === 'stream_id' ? streamId : name === 'wire_id' ? 'fz-w' : 'fz1'),
        );
        const query = new URLSearchParams();
        let contentType: string | undefined = op.body ? 'application/json' : undefined;
        let body: string | undefined;
        const base = validBody(op, streamId);
        switch (m.kind) {
          case 'forged-token':
          case 'stale-token':
            if (op.public) query.set('zz_credential', '1');
            else token = m.kind === 'stale-token' ? stale : m.token;
            break;
          case 'unknown-query':
            query.set(m.name, '1');
            break;
          case 'repeated-query': {
            const name = op.query[0] ?? 'zz_twice';
            query.append(name, '1');
            query.append(name, '2');
            break;
          }
          case 'extreme-query':
            query.set(op.queryInts[0] ?? 'zz_extreme', m.value);
            break;
          case 'media-type':
            if (!op.body) query.set('zz_media', m.type);
            contentType = m.type === '' ? undefined : m.type;
            body = JSON.stringify(base);
            break;
          case 'truncated': {
            const text = JSON.stringify(base);
            body = op.body ? text.slice(0, Math.max(1, Math.floor(text.length * m.at))) : undefined;
            if (!op.body) query.set('zz_truncated', '1');
            break;
          }
          case 'oversized':
            body = JSON.stringify({ ...base, pad: 'x'.repeat(m.bytes) });
            if (!op.body) query.set('zz_oversized', '1');
            break;
          case 'hostile-field':
            body = JSON.stringify(
              op.path.endsWith('/wires')
                ? { ...base, [m.field]: m.value }
                : { ...base, zz: m.value },
            );
            if (!op.body) query.set('zz_field', 'x');
            break;
          case 'hostile-number':
            body = JSON.stringify(
              op.path === '/v1/tokens'
                ? { ...base, expires_in: m.value }
                : op.path.endsWith('/wires')
                  ? { ...base, stream_seq: m.value, payload: { concern: m.value }, wire: 1.1 }
                  : { ...base, zz: m.value },
            );
            if (!op.body) query.set('zz_number', String(m.value));
            break;
        }
        if (op.body && body === undefined) body = JSON.stringify(base);
        const url = `${server.url}${path}${query.size > 0 ? `?${query}` : ''}`;
        const started = performance.now();
        const headers: Record<string, string> = {
          Authorization: `Bearer ${token}`,
          ...(contentType ? { 'Content-Type': contentType } : {}),
        };
        const sendBody = op.body && body !== undefined ? body : undefined;
        const res = await fetch(url, {
          method: op.method,
          headers,
          ...(sendBody !== undefined ? { body: sendBody } : {}),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        const ms = performance.now() - started;
        if (ms > slowest.ms) slowest = { ms, what: `${op.method} ${op.path} ${m.kind}` };
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${op.method} ${op.path} ${JSON.stringify(m).slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
        // A validator judges what it is given: wrong content (or a padded body within
        // its own size limit) is its 200 verdict.
        const content = ['hostile-field', 'hostile-number', 'oversized'].includes(m.kind);
        if (op.verdict && content) {
          expect([200, 400, 413, 422], what).toContain(res.status);
          return;
        }
        expect(res.status, what).toBeGreaterThanOrEqual(400);
        expect(res.status, what).toBeLessThan(500);
        expect(res.headers.get('content-type'), what).toBe('application/problem+json');
        const problem = JSON.parse(text) as { status: number; detail: string; type: string };
        expect(problem.status, what).toBe(res.status);
        expect(typeof problem.detail === 'string' && problem.detail.length > 0, what).toBe(true);
        if (op.method === 'POST' && op.path.endsWith('/wires')) {
          const head = await fetch(`${server.url}/v1/streams/${encodeURIComponent(streamId)}`, {
            headers: { Authorization: `Bearer ${agent}` },
          });
          await head.arrayBuffer();
          expect(head.status, `stored after ${what}`).toBe(404);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 3_600_000);
});
