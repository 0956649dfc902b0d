import * as z from 'zod';
import { AUTH, BODY, type Operation, readScoped, SIGNED } from '../../api/openapi-kit';
import type { FailureCode } from '../../protocol';
import { WorkspaceId } from './identity';
import { Name } from './workspace/payloads';

/** What seed 001's operations share (openapi-*.ts); test/workers/api-contract.test.ts calls each. */

export const WS = { ws: WorkspaceId.meta({ description: 'A workspace id such as `kv-m02`' }) };
export const WRITE: FailureCode[] = [
  ...AUTH,
  ...BODY,
  ...SIGNED,
  'invalid-body',
  'invalid-workspace',
];
export const READ: FailureCode[] = [...AUTH, 'invalid-workspace'];

/** A path parameter named by what it holds. */
export const ID = (what: string) => Name.meta({ description: what });

/** A text answer (Markdown, plain text) of `contentType`. */
export const text = (description: string, contentType: string) => ({
  description,
  contentType,
  schema: z.string(),
});

/** A Heimdall operation: bearer unless it says otherwise. */
export function op(
  o: Omit<Operation, 'tag' | 'access'> & { access?: Operation['access'] },
): Operation {
  return { tag: 'Heimdall', access: 'bearer', ...o };
}

/** A read (`GET`, `read` scope) with one 200 answer. */
export function readOp(
  o: Omit<Operation, 'tag' | 'access' | 'method' | 'scope' | 'answers'> & {
    answer: [description: string, schema: z.ZodType];
  },
): Operation {
  const { answer, ...rest } = o;
  return readScoped('Heimdall', { ...rest, answer: { description: answer[0], schema: answer[1] } });
}
