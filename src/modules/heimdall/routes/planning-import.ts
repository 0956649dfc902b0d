import { setOwn } from '../../../kernel/records';
import { type Failure, fail, type Result } from '../../../protocol';
import { type CapsuleInput, closure, FIELD_LINE } from '../workspace/capsules';

/**
 * What `POST …/import` appends for a `.planning` archive, worked out before
 * anything is stored: one item per symbol, fact, capsule (dependencies
 * first), baseline and ledger line, then the archive's `protocol.log` in
 * parts. The route commits them as one all-or-nothing batch.
 */

/** One Wire to append: its type, its payload (without `haid`), its own time if the archive gives one. */
export interface ImportItem {
  type: string;
  payload: Record<string, unknown>;
  ts?: string;
}

/**
 * A capsule file back into fields: `field: value` lines, continuation lines
 * join the field above (a capsule's own fields never hold a line that starts
 * like a field, so its file reads back as written).
 */
export function parseCapsule(text: string): CapsuleInput & { depends: string[] } {
  const fields: Record<string, string[]> = {};
  let current: string | null = null;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const m = FIELD_LINE.exec(line);
    if (m?.[1]) {
      current = m[1];
      fields[current] = [m[2] ?? ''];
    } else if (current) fields[current]?.push(line);
  }
  const get = (k: string) => fields[k]?.join('\n');
  return {
    what: get('what') ?? '',
    where: get('where') ?? null,
    decision: get('decision') ?? null,
    gotcha: get('gotcha') ?? null,
    depends: (get('depends') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `member` object of the JSON state file at `path` (none: empty), or why not. */
function parseJsonFile(
  files: Record<string, string>,
  path: string,
  member: string,
): Result<{ entries: [string, unknown][] }> {
  const text = files[path];
  if (text === undefined) return { ok: true, entries: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail('invalid-body', `files.${path}: not JSON: ${(error as Error).message}`);
  }
  const inner = isObject(value) ? value[member] : undefined;
  if (!isObject(value) || (inner !== undefined && !isObject(inner))) {
    return fail(
      'invalid-body',
      `files.${path}: must be a JSON object whose "${member}" is an object`,
    );
  }
  return { ok: true, entries: Object.entries(inner ?? {}) };
}

const kindOf = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'object'
        ? 'an object'
        : `a ${typeof v}`;

/**
 * Symbol values are strings; facts are strings, numbers or booleans (as
 * `PUT …/blackboard/{key}` takes them, stored as text). Anything else is
 * refused, naming it, rather than stored as "[object Object]".
 */
function stateItems(
  path: string,
  entries: [string, unknown][],
  what: 'symbol' | 'fact',
): Result<{ items: ImportItem[] }> {
  const items: ImportItem[] = [];
  for (const [key, value] of entries) {
    const text =
      typeof value === 'string' || (what === 'fact' && ['number', 'boolean'].includes(typeof value))
        ? String(value)
        : null;
    if (text === null) {
      const allowed = what === 'symbol' ? 'a string' : 'a string, number or boolean';
      return fail(
        'invalid-body',
        `files.${path}: ${what} "${key}" is ${kindOf(value)}, not ${allowed}`,
        { extra: { file: path, [what === 'symbol' ? 'id' : 'key']: key } },
      );
    }
    items.push(
      what === 'symbol'
        ? { type: 'symbol.set', payload: { id: key, value: text } }
        : { type: 'blackboard.set', payload: { key, value: text } },
    );
  }
  return { ok: true, items };
}

/** Bytes of one imported log part: a Wire (8 KiB by default) with room for its envelope. */
const LOG_PART_BYTES = 6000;
const bytes = (text: string) => new TextEncoder().encode(JSON.stringify(text)).length;

/** `protocol.log` cut at line ends into parts that each fit a Wire; a line too long is refused. */
export function logParts(text: string): string[] | Failure {
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  if (text === '') return [];
  const parts: string[] = [];
  let part = '';
  for (const [i, line] of lines.entries()) {
    if (bytes(`${line}\n`) > LOG_PART_BYTES) {
      return fail(
        'invalid-body',
        `files.protocol.log: line ${i + 1} is longer than ${LOG_PART_BYTES} bytes`,
      );
    }
    if (bytes(`${part}${line}\n`) > LOG_PART_BYTES) {
      parts.push(part);
      part = '';
    }
    part += `${line}\n`;
  }
  parts.push(part);
  return parts;
}

/**
 * The archive's items in append order, how many of them are state (the rest
 * are `planning.imported` log parts), and how many log lines came along; or
 * why the archive cannot be read.
 */
export function importItems(
  files: Record<string, string>,
): Result<{ items: ImportItem[]; count: number; logLines: number }> {
  const symbols = parseJsonFile(files, 'protocol/symbols.json', 'symbols');
  if (!symbols.ok) return symbols;
  const facts = parseJsonFile(files, 'blackboard.json', 'facts');
  if (!facts.ok) return facts;
  const baselines = parseJsonFile(files, 'protocol/baselines.json', 'baselines');
  if (!baselines.ok) return baselines;
  const symbolItems = stateItems('protocol/symbols.json', symbols.entries, 'symbol');
  if (!symbolItems.ok) return symbolItems;
  const factItems = stateItems('blackboard.json', facts.entries, 'fact');
  if (!factItems.ok) return factItems;
  const capsules: Record<string, ReturnType<typeof parseCapsule>> = {};
  for (const [path, text] of Object.entries(files)) {
    const m = /^protocol\/capsules\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})\.md$/.exec(path);
    if (m?.[1]) setOwn(capsules, m[1], parseCapsule(text));
  }
  const order = closure(capsules, Object.keys(capsules).sort());
  if (!order.ok) {
    return fail(
      'unknown-reference',
      `files: a capsule depends on "${order.unknown}", which is not in the archive`,
    );
  }
  const items: ImportItem[] = [...symbolItems.items, ...factItems.items];
  for (const id of order.ids) {
    const cap = capsules[id];
    if (!cap) continue;
    items.push({
      type: 'capsule.written',
      payload: {
        id,
        what: cap.what,
        ...(cap.where ? { where: cap.where } : {}),
        ...(cap.decision ? { decision: cap.decision } : {}),
        ...(cap.gotcha ? { gotcha: cap.gotcha } : {}),
        ...(cap.depends.length > 0 ? { depends: cap.depends } : {}),
      },
    });
  }
  for (const [role, tokens] of baselines.entries)
    items.push({ type: 'ledger.baseline', payload: { role, tokens } });
  for (const [i, line] of (files['protocol/ledger.jsonl'] ?? '').split('\n').entries()) {
    if (line.trim() === '') continue;
    let l: unknown;
    try {
      l = JSON.parse(line);
    } catch {
      l = undefined;
    }
    if (!isObject(l)) {
      return fail(
        'invalid-body',
        `files.protocol/ledger.jsonl: line ${i + 1} is not a JSON object: ${line.slice(0, 80)}`,
        { extra: { file: 'protocol/ledger.jsonl', line: i + 1 } },
      );
    }
    items.push({
      type: 'ledger.logged',
      payload: {
        role: l.role,
        kind: l.kind,
        tokens: l.tokens,
        ...(l.msg_id ? { msg_id: l.msg_id } : {}),
      },
      // The line's own time, so the exported ledger.jsonl says it again.
      ...(typeof l.ts === 'string' ? { ts: l.ts } : {}),
    });
  }
  const log = files['protocol.log'];
  const parts = log === undefined ? [] : logParts(log);
  if (!Array.isArray(parts)) return parts;
  const count = items.length;
  // With a log, each item's audit line is in it: the items add none of their own.
  if (log !== undefined) for (const item of items) item.payload.imported = true;
  for (const [i, part] of parts.entries())
    items.push({
      type: 'planning.imported',
      payload: { log: part, part: i + 1, parts: parts.length },
    });
  return { ok: true, items, count, logLines: parts.join('').split('\n').length - 1 };
}

/**
 * The archive's identity for its caller: the same files from the same sender
 * give the same wire ids, so a retried import is a replay, not a second copy.
 */
export async function archiveDigest(
  sender: string,
  files: Record<string, string>,
): Promise<string> {
  const entries = Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = new TextEncoder().encode(JSON.stringify([sender, entries]));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return [...hash.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
