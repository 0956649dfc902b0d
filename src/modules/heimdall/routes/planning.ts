import { type Context, Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  principalOf,
  problem,
  staticFile,
  tokenGuards,
} from '../../../api/module-kit';
import { admission, draftOf } from '../../../kernel/append';
import { derivedWireId } from '../../../kernel/derived-id';
import {
  type Draft,
  type Failure,
  newWireId,
  type Result,
  type Wire,
  draftOf as wireOf,
} from '../../../protocol';
import { streamStub } from '../../../stream/stub';
import { REGISTRY } from '../..';
import { IMPORT_ID } from '../catalogue';
import { surfacesStream } from '../identity';
import { auditLines } from '../workspace/audit';
import { capsuleMarkdown } from '../workspace/capsules';
import { MESSAGE_SCHEMA_ASSET, PROTOCOL_VERSION } from '../workspace/messages';
import { archiveDigest, importItems } from './planning-import';
import { bodyOf, workspaceState, workspaceTarget } from './support';

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

/** The published message schema, as `GET /v1/schema/heimdall/message-schema.json` serves it. */
async function messageSchemaText(c: Context<AppEnv>): Promise<string> {
  const res = await staticFile(c, MESSAGE_SCHEMA_ASSET);
  if (!res)
    throw new Error(`the static Worker has no ${MESSAGE_SCHEMA_ASSET}: run npm run build:openapi`);
  return `${(await res.text()).trimEnd()}\n`;
}

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
    'protocol/message-schema.json': await messageSchemaText(c),
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

const IMPORT_BYTES = 4 * 1024 * 1024;

/** The refusal of item `index` of `n`, said so: nothing of the archive was stored. */
function atItem(failure: Failure, index: number, n: number, type: string): Failure {
  return {
    ...failure,
    detail: `item ${index + 1} of ${n} (${type}): ${failure.detail}; nothing was imported`,
    extra: { ...failure.extra, index },
  };
}

// All or nothing: every item is drafted and checked (body, rights, signature)
// before the first write, then `appendMany` decides and stores them together
// — a refusal anywhere stores none. Wire ids come from the archive and its
// sender, and items without a time of their own share the import's time, so
// retrying the same archive is a replay (the stored time is read back for the
// retry), never a second copy of its ledger lines.
planningRoutes.post('/workspaces/:ws/import', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, PlanningArchive, IMPORT_BYTES);
  if (!body.ok) return problem(c, body);
  const files = body.value.files;
  const planned = importItems(files);
  if (!planned.ok) return problem(c, planned);
  const { items } = planned;
  const sender = principalOf(c).sub;
  const key = await archiveDigest(sender, files);
  const guards = tokenGuards(c);
  const draftsAt = async (ts: string): Promise<Result<{ drafts: Draft[] }>> => {
    const drafts: Draft[] = [];
    for (const [index, item] of items.entries()) {
      const built = draftOf(
        wireOf({
          wire_id: newWireId(),
          stream_id: t.stream,
          type: item.type,
          sender,
          ts: item.ts ?? ts,
          payload: { ...item.payload, haid: sender },
        }),
        t.stream,
        REGISTRY,
      );
      if (!built.ok) return atItem(built, index, items.length, item.type);
      const draft = { ...built.draft, wire_id: derivedWireId(IMPORT_ID, key, index) };
      const denied = guards.rights(draft);
      if (denied) return atItem(denied, index, items.length, item.type);
      const refused = await admission(c.env, draft, REGISTRY);
      if (refused) return atItem(refused, index, items.length, item.type);
      const signed = await guards.signature(draft);
      if (!signed.ok) return atItem(signed, index, items.length, item.type);
      drafts.push(signed.draft);
    }
    return { ok: true, drafts };
  };
  const stub = streamStub(c.env, t.stream);
  const at = new Date().toISOString();
  const first = await draftsAt(at);
  if (!first.ok) return problem(c, first);
  const limited = first.drafts[0] ? ((await guards.rate?.(first.drafts[0])) ?? null) : null;
  if (limited) return problem(c, limited);
  let result = await stub.appendMany(first.drafts);
  // The same archive imported before: its items carry that import's time.
  const index = result.ok ? -1 : Number(result.extra?.index ?? -1);
  if (!result.ok && result.code === 'wire-id-conflict' && items[index]?.ts === undefined) {
    const seq = Number(result.extra?.stream_seq ?? 0);
    const stored = seq > 0 ? (await stub.read(seq - 1, 1)).wires[0]?.ts : undefined;
    if (stored !== undefined && stored !== at) {
      const again = await draftsAt(stored);
      if (!again.ok) return problem(c, again);
      result = await stub.appendMany(again.drafts);
    }
  }
  if (!result.ok) {
    const i = Number(result.extra?.index ?? 0);
    return problem(c, atItem(result, i, items.length, items[i]?.type ?? 'item'));
  }
  return c.json({
    imported: planned.count,
    log_lines: planned.logLines,
    workspace: t.ws,
    replayed: result.results.length > 0 && result.results.every((r) => r.ok && r.replay),
  });
});
