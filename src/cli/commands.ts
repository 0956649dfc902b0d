import { text } from 'node:stream/consumers';
import type { Payload, ServedWire, SubscriptionState, WirestreamClient } from '../client';
import { emit, type Output, outputWidth, wireTable } from './format';
import { duration, ProgressBar } from './progress';
import { intFlag, jsonArg, UsageError } from './usage';

export interface AppendFlags {
  type?: string;
  payload?: string;
  sender?: string;
  count?: string;
}

interface Item {
  type: string;
  payload: Payload;
}

const EXPECTED =
  'give --type T [--payload JSON], or JSON lines such as {"type":"review.concern","payload":{"concern":"x"}} on stdin';

function objectOrThrow(what: string, value: unknown): Payload {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object`);
  }
  return value as Payload;
}

/**
 * The Wires stdin asks for, every line checked before any is sent (a bad
 * line is exit 2 with nothing appended, as the README promises).
 */
async function stdinItems(): Promise<Item[]> {
  if (process.stdin.isTTY) throw new UsageError(`append needs input: ${EXPECTED}`);
  const lines = (await text(process.stdin)).split('\n');
  const items: Item[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `stdin line ${i + 1}`;
    const item = objectOrThrow(where, jsonArg(where, line));
    if (typeof item.type !== 'string') throw new UsageError(`${where} has no "type": ${line}`);
    const payload =
      item.payload === undefined ? {} : objectOrThrow(`${where}: "payload"`, item.payload);
    items.push({ type: item.type, payload });
  });
  if (items.length === 0) throw new UsageError(`append got no Wires on stdin: ${EXPECTED}`);
  return items;
}

/**
 * `append <stream> --type T [--payload JSON] [--count N]`, or one JSON object
 * per line on stdin (`{"type":…,"payload":…}`) when no --type is given. One
 * Wire (or --json) prints its receipt; more print a progress bar with an ETA
 * on a terminal (stderr), then one summary line.
 */
export async function append(
  client: WirestreamClient,
  streamId: string,
  flags: AppendFlags,
  output: Output,
): Promise<number> {
  let items: Item[];
  if (flags.type !== undefined) {
    const count = intFlag('count', flags.count, 1, 1);
    const payload = objectOrThrow(
      '--payload',
      flags.payload === undefined ? {} : jsonArg('--payload', flags.payload),
    );
    items = Array.from({ length: count }, () => ({ type: flags.type as string, payload }));
  } else {
    items = await stdinItems();
  }
  const each = items.length === 1 || output.json;
  const bar = new ProgressBar('append', items.length);
  const started = Date.now();
  const seqs: number[] = [];
  let replays = 0;
  for (const item of items) {
    const result = await client.append(streamId, item).catch((error: unknown) => {
      if (seqs.length > 0)
        output.err(`${seqs.length} of ${items.length} appended before this error`);
      throw error;
    });
    const r = result.receipt;
    seqs.push(r.stream_seq);
    if (result.replay) replays++;
    if (each) {
      emit(
        output,
        { ...r, replay: result.replay },
        `appended #${r.stream_seq} ${r.wire_id}${result.replay ? ' (replay)' : ''}`,
      );
    } else bar.update(seqs.length);
  }
  if (!each) {
    bar.finish();
    const seconds = (Date.now() - started) / 1000;
    const rate = Math.round(items.length / Math.max(seconds, 0.001));
    output.out(
      `appended ${items.length} Wires to ${streamId}: #${seqs[0]}–#${seqs.at(-1)} in ${duration(seconds)} (${rate}/s)${replays ? `, ${replays} replays` : ''}`,
    );
  }
  return 0;
}

/**
 * `tail <stream> [--after N] [--follow]`: prints the stream in order; with
 * --follow it stays on the live feed (reconnecting as needed) until Ctrl-C.
 * A stream with no Wires, or --after past its last one, is said, not printed
 * as an empty success: exit 1, unless --follow waits for what comes.
 */
export async function tail(
  client: WirestreamClient,
  streamId: string,
  flags: { follow?: boolean; after?: string },
  output: Output,
): Promise<number> {
  const after = intFlag('after', flags.after, 0);
  const info = await client.info(streamId);
  const last = info?.last_seq ?? 0;
  const problem =
    info === null
      ? `no such stream: ${streamId} has no Wires`
      : after > last
        ? `${streamId} ends at #${last}: there is no #${after + 1} (--after ${last} or less, or --follow to wait)`
        : undefined;
  if (problem && !flags.follow) {
    output.err(`error: ${problem}`);
    return 1;
  }
  if (problem) output.err(`${problem}; waiting for it (Ctrl-C to stop)`);
  const table = wireTable(outputWidth());
  let headed = false;
  const print = (wire: ServedWire) => {
    if (!output.json && !headed) {
      output.out(table.header);
      headed = true;
    }
    emit(output, wire, table.line(wire));
  };
  if (!flags.follow) {
    for await (const wire of client.readAll(streamId, after)) print(wire);
    if (after === last) output.err(`no Wires after #${after}: that is the last one`);
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
    onCaughtUp: (at) => output.err(`caught up at #${at}; following live (Ctrl-C to stop)`),
    onGap: (gap) => output.err(`gap: expected #${gap.expected}, got #${gap.got}; re-reading`),
  });
  await sub.closed;
  return 0;
}
