import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, intQuery, parseQuery, problem } from '../../../api/module-kit';
import { ownValue } from '../../../kernel/records';
import { fail, type Wire } from '../../../protocol';
import { streamStub, wiresAt } from '../../../stream/stub';
import { Haid, surfacesStream } from '../identity';
import { auditLines } from '../workspace/audit';
import { Name } from '../workspace/payloads';
import type { Decision, WorkspaceState } from '../workspace/state';
import { workspaceState, workspaceTarget, writeAs } from './support';

/**
 * The decisions log, conflict records (the MCP tools `append_decision` and
 * `raise_conflict_pr`) as Markdown documents, and the audit log.
 */
export const documentRoutes = new Hono<AppEnv>();

export const DecisionBody = z.strictObject({
  title: z.string().min(1).max(300),
  body: z.string().min(1).max(20_000),
  haid: Haid.optional(),
});
export const ConflictBody = z.strictObject({
  id: Name,
  title: z.string().min(1).max(300),
  surfaces: z.array(z.string().min(1).max(256)).min(1).max(64),
  displaced_haid: z.string().min(1).max(200).optional(),
  overriding_intent: z.string().max(4000).optional(),
  displaced_intent: z.string().max(4000).optional(),
  haid: Haid.optional(),
});
export const LogQuery = {
  n: intQuery(1, 1000, 50).meta({ description: 'Last N lines (default 50)' }),
};

documentRoutes.post('/workspaces/:ws/decisions', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const result = await writeAs(c, t.stream, DecisionBody, 'decision.appended');
  if (!result.ok) return problem(c, result);
  const seq = Number(result.receipt.decision_seq);
  const entry = (await workspaceState(c, t.ws)).decisions.find((d) => d.seq === seq);
  // The body is the one just stored (or, on a replay, stored before with the same content).
  const decision = entry ? jsonOf(entry, result.value.body) : undefined;
  return c.json({ decision }, 201);
});

documentRoutes.get('/workspaces/:ws/decisions', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const state = await workspaceState(c, t.ws);
  return c.json({ decisions: await withBodies(c, t.stream, state.decisions) });
});

/** A decisions-log entry as the API shows it. */
export interface DecisionJson {
  seq: number;
  title: string;
  body: string;
  haid: string;
  at: string;
}

/**
 * The entries with their bodies, read from their `decision.appended` Wires
 * (the state keeps only where each is).
 */
async function withBodies(
  c: Parameters<typeof workspaceTarget>[0],
  streamId: string,
  decisions: readonly Decision[],
): Promise<DecisionJson[]> {
  const wires = await wiresAt(
    streamStub(c.env, streamId),
    decisions.map((d) => d.wire_seq),
  );
  return decisions.map((d) => jsonOf(d, String(wires.get(d.wire_seq)?.payload.body ?? '')));
}

function jsonOf(d: Decision, body: string): DecisionJson {
  return { seq: d.seq, title: d.title, body, haid: d.haid, at: d.at };
}

documentRoutes.post('/workspaces/:ws/conflicts', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const result = await writeAs(c, t.stream, ConflictBody, 'conflict.raised');
  if (!result.ok) return problem(c, result);
  return c.json({ path: result.receipt.path, decision_seq: result.receipt.decision_seq }, 201);
});

export function decisionsMarkdown(ws: string, decisions: readonly DecisionJson[]): string {
  const lines = [`# Decisions — ${ws}`, ''];
  for (const d of decisions) {
    lines.push(`## ${d.seq}. ${d.title}`, '', `- by: ${d.haid}`, `- at: ${d.at}`, '', d.body, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export function conflictMarkdown(state: WorkspaceState, path: string): string | null {
  const r = ownValue(state.conflicts, path);
  if (!r) return null;
  const lines = [
    `# Conflict: ${r.title}`,
    '',
    `- id: ${r.id}`,
    `- raised by: ${r.haid}`,
    `- at: ${r.at}`,
    `- surfaces: ${r.surfaces.map((s) => `\`${s}\``).join(', ')}`,
    ...(r.displaced_haid ? [`- displaced: ${r.displaced_haid}`] : []),
    `- decisions log: entry ${r.decision_seq} of [decisions.md](../decisions.md)`,
    '',
    '## Overriding intent',
    '',
    r.overriding_intent ?? '(not given)',
    '',
    '## Displaced intent',
    '',
    r.displaced_intent ?? '(not given)',
  ];
  return `${lines.join('\n')}\n`;
}

const MARKDOWN = { 'Content-Type': 'text/markdown; charset=utf-8' };

documentRoutes.get('/workspaces/:ws/documents/decisions.md', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const decisions = await withBodies(c, t.stream, (await workspaceState(c, t.ws)).decisions);
  return c.body(decisionsMarkdown(t.ws, decisions), 200, MARKDOWN);
});

documentRoutes.get('/workspaces/:ws/documents/conflicts/:file', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const file = c.req.param('file');
  const text = conflictMarkdown(await workspaceState(c, t.ws), `conflicts/${file}`);
  if (text === null) return problem(c, fail('not-found', `no conflict record conflicts/${file}`));
  return c.body(text, 200, MARKDOWN);
});

/** The last `n` Wires of a stream, oldest first. */
async function tail(
  c: Parameters<typeof workspaceTarget>[0],
  streamId: string,
  n: number,
): Promise<Wire[]> {
  const stub = streamStub(c.env, streamId);
  const info = await stub.info();
  if (!info) return [];
  const page = await stub.read(Math.max(0, info.last_seq - n), n);
  return page.wires as unknown as Wire[];
}

documentRoutes.get('/workspaces/:ws/log', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const parsed = parseQuery(c, LogQuery);
  if (!parsed.ok) return problem(c, parsed);
  const count = parsed.query.n;
  const wires = [
    ...(await tail(c, t.stream, count)),
    ...(await tail(c, surfacesStream(t.ws), count)),
  ].sort((a, b) => a.ts.localeCompare(b.ts) || a.stream_seq - b.stream_seq);
  const lines = wires.flatMap(auditLines).slice(-count);
  return c.body(lines.length > 0 ? `${lines.join('\n')}\n` : '', 200, {
    'Content-Type': 'text/plain; charset=utf-8',
  });
});
