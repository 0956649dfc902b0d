import type { FailureCode } from '../../protocol';
import { problemMeta } from '../problem';
import { COMPONENT, type Json } from './components';
import { HEADERS } from './headers';

/** A problem code's status and title; a code with none is a bug in the route table. */
function metaOf(code: string): { status: number; title: string } {
  const meta = problemMeta(code);
  if (!meta) throw new Error(`no problem type "${code}" (api/problem.ts or a module's problems)`);
  return meta;
}

/** Statuses from problem.ts, grouped: each operation lists the types it may answer. */
export function problemsByStatus(codes: FailureCode[]): Map<number, FailureCode[]> {
  const out = new Map<number, FailureCode[]>();
  for (const code of new Set(codes)) {
    const { status } = metaOf(code);
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return out;
}

const PROBLEM_JSON = 'application/problem+json';

export function problemResponse(codes: FailureCode[]): Json {
  const lines = codes.map((c) => `\`/problems/${c}\`: ${metaOf(c).title}`);
  const auth = codes.includes('unauthenticated') ? ['WwwAuthenticate'] : [];
  const rate = codes.includes('rate-limited') ? ['RetryAfter'] : [];
  return {
    description: lines.join('; '),
    ...([...auth, ...rate].length > 0
      ? {
          headers: Object.fromEntries(
            [...auth, ...rate].map((h) => [
              HEADERS[h]?.name,
              { $ref: `#/components/headers/${h}` },
            ]),
          ),
        }
      : {}),
    content: {
      [PROBLEM_JSON]: {
        schema: {
          allOf: [
            { $ref: `${COMPONENT}Problem` },
            {
              properties: {
                type: { enum: codes.map((c) => `/problems/${c}`) },
                status: { const: metaOf(codes[0] ?? 'not-found').status },
              },
            },
          ],
        },
      },
    },
  };
}
