import type { ServedWire } from '../client';

export interface Output {
  json: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Writes `value` as one JSON line in --json mode, else the human text. */
export function emit(output: Output, value: unknown, human: string): void {
  output.out(output.json ? JSON.stringify(value) : human);
}

/** The width human output fits: the terminal's, or 120 columns when piped. */
export function outputWidth(stream: NodeJS.WriteStream = process.stdout): number {
  return stream.isTTY && stream.columns > 0 ? stream.columns : 120;
}

/** How long ago: `5s ago`, `12m ago`, `3h ago`, `4d ago` (the exact time is in --json). */
export function when(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** Where a Wire stands on HCS: `pending`, or `0.0.1001#12` once anchored. */
export function anchorText(wire: ServedWire): string {
  const a = wire.anchor;
  if (!a) return 'pending';
  if (a.status === 'anchored' && a.hcs_topic_id) {
    return `${a.hcs_topic_id}#${a.hcs_sequence_number ?? '?'}`;
  }
  return a.status;
}

/** `text` cut to `width` characters, the cut marked with `…`. */
export function fitTo(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

const COLUMNS: [title: string, width: number][] = [
  ['seq', 6],
  ['received', 8],
  ['type', 22],
  ['sender', 22],
  ['anchor', 14],
];
/** Columns that give way on a narrow terminal (type, sender, anchor), cut with `…`. */
const FLEXIBLE = 2;

/**
 * Column widths for a `width`-wide terminal: as above while the payload
 * keeps at least 30% of the line, else type, sender and anchor shrink.
 */
function widths(width: number): number[] {
  const natural = COLUMNS.map(([, w]) => w);
  const gaps = 2 * COLUMNS.length;
  const room = width - gaps - Math.max(12, Math.floor(width * 0.3));
  const total = natural.reduce((a, b) => a + b, 0);
  if (room >= total) return natural;
  const fixed = natural.slice(0, FLEXIBLE).reduce((a, b) => a + b, 0);
  const flexible = total - fixed;
  return natural.map((w, i) =>
    i < FLEXIBLE ? w : Math.max(4, Math.floor(((room - fixed) * w) / flexible)),
  );
}

function row(cells: string[], payload: string, width: number): string {
  const cols = widths(width);
  const head = cells.map((c, i) => fitTo(c, cols[i] ?? 0).padEnd(cols[i] ?? 0)).join('  ');
  return `${head}  ${fitTo(payload, Math.max(12, width - head.length - 2))}`.trimEnd();
}

/** `tail`'s table: a header line, then one line per Wire with its payload fitted to `width`. */
export function wireTable(width: number) {
  return {
    header: row(
      COLUMNS.map(([title]) => title),
      'payload',
      width,
    ),
    line: (wire: ServedWire, now = Date.now()) =>
      row(
        [
          `#${wire.stream_seq}`,
          when(wire.received_at, now),
          wire.type,
          wire.sender,
          anchorText(wire),
        ],
        JSON.stringify(wire.payload),
        width,
      ),
  };
}

/** One Wire as one line of `tail`'s table (no header), fitted to stdout. */
export function wireLine(wire: ServedWire): string {
  return wireTable(outputWidth()).line(wire);
}
