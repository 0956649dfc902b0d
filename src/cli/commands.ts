import { createInterface } from 'node:readline';
import type { Payload, ServedWire, SubscriptionState, WirestreamClient } from '../client';
import { emit, type Output, wireLine } from './format';
import { ProgressBar } from './progress';
import { intFlag, jsonArg, UsageError } from './usage';

export interface AppendFlags {
  type?: string;
  payload?: string;
  sender?: string;
  count?: string;
}

function parsePayload(text: string | undefined): Payload {
  if (text === undefined) return {};
  const value = jsonArg('--payload', text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--payload must be a JSON object');
  }
  return value as Payload;
}

/**
 * `append <stream> --type T [--payload JSON] [--count N]`, or one JSON object
 * per line on stdin (`{"type":…,"payload":…}`) when no --type is given.
 */
export async function append(
  client: WirestreamClient,
  streamId: string,
  flags: AppendFlags,
  output: Output,
): Promise<number> {
  const sender = flags.sender;
  const send = async (type: string, payload: Payload) => {
    const result = await client.append(streamId, { type, payload, ...(sender ? { sender } : {}) });
    const r = result.receipt;
    emit(
      output,
      { ...r, replay: result.replay },
      `appended #${r.stream_seq} ${r.wire_id}${result.replay ? ' (replay)' : ''}`,
    );
  };
  if (flags.type !== undefined) {
    const count = intFlag('count', flags.count, 1, 1);
    const bar = new ProgressBar('append', count);
    const quiet = count > 1 && bar.enabled;
    for (let i = 0; i < count; i++) {
      const payload = parsePayload(flags.payload);
      if (quiet) {
        await client.append(streamId, { type: flags.type, payload, ...(sender ? { sender } : {}) });
      } else {
        await send(flags.type, payload);
      }
      bar.update(i + 1);
    }
    if (quiet) bar.finish();
    return 0;
  }
  if (process.stdin.isTTY) {
    throw new UsageError('append needs --type, or JSON lines ({"type":…,"payload":…}) on stdin');
  }
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const item = jsonArg(`stdin line "${line}"`, line) as {
      type?: unknown;
      payload?: unknown;
    } | null;
    if (typeof item?.type !== 'string') throw new UsageError(`a line without "type": ${line}`);
    await send(item.type, (item.payload ?? {}) as Payload);
  }
  return 0;
}

/**
 * `tail <stream> [--after N] [--follow]`: prints the stream in order; with
 * --follow it stays on the live feed (reconnecting as needed) until Ctrl-C.
 */
export async function tail(
  client: WirestreamClient,
  streamId: string,
  flags: { follow?: boolean; after?: string },
  output: Output,
): Promise<number> {
  const after = intFlag('after', flags.after, 0);
  const print = (wire: ServedWire) => emit(output, wire, wireLine(wire));
  if (!flags.follow) {
    for await (const wire of client.readAll(streamId, after)) print(wire);
    return 0;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  const sub = client.subscribe(streamId, {
    afterSeq: after,
    signal: stop.signal,
    onWires: (wires) => {
      for (const wire of wires) print(wire);
    },
    onState: (state: SubscriptionState, detail) => {
      if (state === 'reconnecting')
        output.err(`reconnecting${detail?.reason ? ` (${detail.reason})` : ''}…`);
    },
    onCaughtUp: (last) => output.err(`caught up at #${last}; following live (Ctrl-C to stop)`),
    onGap: (gap) => output.err(`gap: expected #${gap.expected}, got #${gap.got}; re-reading`),
  });
  await sub.closed;
  return 0;
}
