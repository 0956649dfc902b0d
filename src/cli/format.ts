import type { ServedWire } from '../client';

const MAX_PAYLOAD = 100;

/** One Wire per line: `#seq  time  type  sender  payload`. */
export function wireLine(wire: ServedWire): string {
  const time = wire.received_at.slice(11, 23);
  let payload = JSON.stringify(wire.payload);
  if (payload.length > MAX_PAYLOAD) payload = `${payload.slice(0, MAX_PAYLOAD - 1)}…`;
  return `#${wire.stream_seq}\t${time}\t${wire.type}\t${wire.sender}\t${payload}`;
}

export interface Output {
  json: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Writes `value` as one JSON line in --json mode, else the human text. */
export function emit(output: Output, value: unknown, human: string): void {
  output.out(output.json ? JSON.stringify(value) : human);
}
