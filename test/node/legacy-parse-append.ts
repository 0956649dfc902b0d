/**
 * `parseAppend` as it was before dialects (commit 4816078), kept as the oracle
 * that test/node/dialects-native.test.ts compares the dialect path against.
 * Changes: the minted wire_id comes from `newWireId` (it read the clock), and the
 * payload rules are today's (`payloadIssues`; issue 26 made them apply to every type).
 */
import type * as z from 'zod';
import { COORDINATION_DERIVED_IDS } from '../../src/modules/coordination/catalogue';
import { PAYLOADS } from '../../src/modules/coordination/payloads';
import {
  type Draft,
  invalidWire as invalid,
  fieldIssues as issuesOf,
  payloadIssues,
  Wire11Input,
  WireInput,
} from '../../src/protocol/envelope';
import { fail, type Result } from '../../src/protocol/failure';
import { reservedWireIdProblem } from '../../src/protocol/ids';

const isKnownType = (type: string): type is keyof typeof PAYLOADS => Object.hasOwn(PAYLOADS, type);

import { streamIdProblem } from '../../src/protocol/stream-id';
import { isPlainWire11 } from '../../src/protocol/wire11-fast-path';

const Timestamp = Wire11Input.shape.ts;

export interface LegacyParsedAppend {
  draft: Draft;
  expectedSeq: number | undefined;
  upgraded: boolean;
}

export function legacyParseAppend(
  body: unknown,
  streamId: string,
  newWireId: () => string,
): Result<LegacyParsedAppend> {
  const pathProblem = streamIdProblem(streamId);
  if (pathProblem !== null) return fail('invalid-stream-id', pathProblem);

  const plain =
    isPlainWire11(body, streamId) && Timestamp.safeParse((body as { ts: unknown }).ts).success;
  const parsed = plain ? null : WireInput.safeParse(body);
  if (parsed && !parsed.success) return invalid(issuesOf(parsed.error));
  const input = parsed ? parsed.data : (body as z.infer<typeof Wire11Input>);

  if (input.stream_id !== undefined && input.stream_id !== streamId) {
    return fail(
      'stream-id-mismatch',
      `stream_id in the body ("${input.stream_id}") differs from the stream in the path ("${streamId}")`,
    );
  }

  // The payload rules as they stand since issue 26 (by-reference and identifier rules for
  // every type, not only the catalogue's): the one place they live.
  const payloadProblems = payloadIssues(input.type, input.payload, (type) =>
    isKnownType(type) ? PAYLOADS[type] : undefined,
  );
  if (payloadProblems) return invalid(payloadProblems);

  if (input.wire === '1.1') {
    const reserved = reservedWireIdProblem(input.wire_id, COORDINATION_DERIVED_IDS);
    if (reserved !== null) return invalid([{ path: 'wire_id', message: reserved }]);
  }

  const upgraded = input.wire === '1.0';
  const draft: Draft = {
    wire: '1.1',
    wire_id: input.wire === '1.1' ? input.wire_id : newWireId(),
    stream_id: streamId,
    correlation_id: input.wire === '1.1' ? (input.correlation_id ?? null) : null,
    causation_id: input.wire === '1.1' ? (input.causation_id ?? null) : null,
    type: input.type,
    sender: input.sender,
    ts: input.ts,
    payload: input.payload,
  };
  const expectedSeq = input.wire === '1.1' ? input.stream_seq : undefined;
  return { ok: true, draft, expectedSeq, upgraded };
}
