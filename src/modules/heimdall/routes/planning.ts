import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, problem } from '../../../api/module-kit';
import { type Failure, fail, type Wire } from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { surfacesStream } from '../identity';
import { auditLines } from '../workspace/audit';
import { type CapsuleInput, capsuleMarkdown, closure } from '../workspace/capsules';
import { messageSchema, PROTOCOL_VERSION } from '../workspace/messages';
import { appendAs, bodyOf, workspaceState, workspaceTarget } from './support';

/**
 * `.planning` interop: a workspace as the seed's layout (`protocol.log`,
 * `blackboard.json`, `protocol/symbols.json`, `protocol/message-schema.json`,
 * `protocol/baselines.json`, `protocol/ledger.jsonl`,
 * `protocol/capsules/{id}.md`), as one JSON archive `{files: {path: text}}`,
 * and the import of such a tree into a workspace.
 */
export const planningRoutes = new Hono<AppEnv>();

export const PlanningArchive = z.looseObject({
  format: z.literal('heimdall-planning').optional(),
  protocol_version: z.string().optional(),
  files: z.record(z.string().max(300), z.string().max(1_000_000)),
});

async function allWires(
  c: Parameters<typeof workspaceTarget>[0],
  streamId: string,
): Promise<Wire[]> {
  const stub = streamStub(c.env, streamId);
  const out: Wire[] = [];
  for (let after = 0; ; ) {
    const page = await stub.read(after, 1000);
    out.push(...(page.wires as unknown as Wire[]));
    const last = page.wires.at(-1);
    if (!last || last.stream_seq >= page.last_seq) break;
    after = last.stream_seq;
  }
  return out;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

planningRoutes.get('/workspaces/:ws/export', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const state = await workspaceState(c, t.ws);
  const wires = [
    ...(await allWires(c, t.stream)),
    ...(await allWires(c, surfacesStream(t.ws))),
  ].sort((a, b) => a.ts.localeCompare(b.ts) || a.stream_seq - b.stream_seq);
  const files: Record<string, string> = {
    'protocol.log': wires.flatMap((w) => auditLines(w).map((l) => `${l}\n`)).join(''),
    'blackboard.json': json({
      version: PROTOCOL_VERSION,
      facts: Object.fromEntries(Object.entries(state.blackboard).map(([k, e]) => [k, e.value])),
    }),
    'protocol/symbols.json': json({
      version: PROTOCOL_VERSION,
      symbols: Object.fromEntries(Object.entries(state.symbols).map(([k, e]) => [k, e.value])),
    }),
    'protocol/message-schema.json': json(messageSchema()),
    'protocol/baselines.json': json({
      version: PROTOCOL_VERSION,
      baselines: state.ledger.baselines,
    }),
    'protocol/ledger.jsonl': wires
      .filter((w) => w.type === 'ledger.logged')
      .map((w) => {
        const p = w.payload;
        return `${JSON.stringify({ ts: w.ts, role: p.role, kind: p.kind, tokens: p.tokens, ...(p.msg_id ? { msg_id: p.msg_id } : {}) })}\n`;
      })
      .join(''),
  };
  for (const capsule of Object.values(state.capsules)) {
    files[`protocol/capsules/${capsule.id}.md`] = capsuleMarkdown(capsule);
  }
  return c.json({
    format: 'heimdall-planning',
    protocol_version: PROTOCOL_VERSION,
    workspace: t.ws,
    files,
  });
});

/** A capsule file back into fields: `field: value` lines, continuation lines join the field above. */
export function parseCapsule(text: string): CapsuleInput & { depends: string[] } {
  const fields: Record<string, string[]> = {};
  let current: string | null = null;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const m = /^(what|where|decision|gotcha|depends): ?(.*)$/.exec(line);
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

function parseJsonFile(
  files: Record<string, string>,
  path: string,
  member: string,
): Record<string, unknown> {
  const text = files[path];
  if (text === undefined) return {};
  const value = JSON.parse(text) as Record<string, unknown>;
  const inner = value[member];
  return inner && typeof inner === 'object' ? (inner as Record<string, unknown>) : {};
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

planningRoutes.post('/workspaces/:ws/import', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, PlanningArchive, 4 * 1024 * 1024);
  if (!body.ok) return problem(c, body);
  const files = body.value.files;
  let symbols: Record<string, unknown>;
  let facts: Record<string, unknown>;
  let baselines: Record<string, unknown>;
  try {
    symbols = parseJsonFile(files, 'protocol/symbols.json', 'symbols');
    facts = parseJsonFile(files, 'blackboard.json', 'facts');
    baselines = parseJsonFile(files, 'protocol/baselines.json', 'baselines');
  } catch (error) {
    return problem(
      c,
      fail('invalid-body', `files: a state file is not JSON: ${(error as Error).message}`),
    );
  }
  const capsules: Record<string, ReturnType<typeof parseCapsule>> = {};
  for (const [path, text] of Object.entries(files)) {
    const m = /^protocol\/capsules\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})\.md$/.exec(path);
    if (m?.[1]) capsules[m[1]] = parseCapsule(text);
  }
  const order = closure(capsules, Object.keys(capsules).sort());
  if (!order.ok) {
    return problem(
      c,
      fail(
        'unknown-reference',
        `files: a capsule depends on "${order.unknown}", which is not in the archive`,
      ),
    );
  }
  const steps: [string, Record<string, unknown>, string?][] = [];
  for (const [id, value] of Object.entries(symbols))
    steps.push(['symbol.set', { id, value: String(value) }]);
  for (const [key, value] of Object.entries(facts))
    steps.push(['blackboard.set', { key, value: String(value) }]);
  for (const id of order.ids) {
    const cap = capsules[id];
    if (!cap) continue;
    steps.push([
      'capsule.written',
      {
        id,
        what: cap.what,
        ...(cap.where ? { where: cap.where } : {}),
        ...(cap.decision ? { decision: cap.decision } : {}),
        ...(cap.gotcha ? { gotcha: cap.gotcha } : {}),
        ...(cap.depends.length > 0 ? { depends: cap.depends } : {}),
      },
    ]);
  }
  for (const [role, tokens] of Object.entries(baselines))
    steps.push(['ledger.baseline', { role, tokens }]);
  for (const line of (files['protocol/ledger.jsonl'] ?? '').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const l = JSON.parse(line) as Record<string, unknown>;
      steps.push([
        'ledger.logged',
        { role: l.role, kind: l.kind, tokens: l.tokens, ...(l.msg_id ? { msg_id: l.msg_id } : {}) },
        // The line's own time, so the exported ledger.jsonl says it again.
        typeof l.ts === 'string' ? l.ts : undefined,
      ]);
    } catch {
      return problem(
        c,
        fail(
          'invalid-body',
          `files.protocol/ledger.jsonl: a line is not JSON: ${line.slice(0, 80)}`,
        ),
      );
    }
  }
  const log = files['protocol.log'];
  const parts = log === undefined ? [] : logParts(log);
  if (!Array.isArray(parts)) return problem(c, parts);
  const haid = c.get('principal').sub;
  // With a log, each item's audit line is in it: the items add none of their own.
  const mark = log === undefined ? {} : { imported: true };
  let imported = 0;
  for (const [type, payload, ts] of steps) {
    const result = await appendAs(c, t.stream, type, { ...payload, ...mark, haid }, { ts });
    if (!result.ok) {
      return problem(c, {
        ...result,
        detail: `after ${imported} of ${steps.length} items: ${result.detail}`,
      });
    }
    imported++;
  }
  for (const [i, part] of parts.entries()) {
    const payload = { log: part, part: i + 1, parts: parts.length, haid };
    const result = await appendAs(c, t.stream, 'planning.imported', payload);
    if (!result.ok) return problem(c, result);
  }
  return c.json({ imported, log_lines: parts.join('').split('\n').length - 1, workspace: t.ws });
});
