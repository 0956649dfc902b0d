import { type Context, Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, problem } from '../../../api/module-kit';
import { ownValue } from '../../../kernel/records';
import { fail } from '../../../protocol';
import { streamStub, wiresAt } from '../../../stream/stub';
import { Haid } from '../identity';
import { type Capsule, capsuleJson, closure } from '../workspace/capsules';
import { PROTOCOL_VERSION } from '../workspace/messages';
import { CapsuleFields, Name } from '../workspace/payloads';
import type { SymbolEntry } from '../workspace/state';
import { workspaceState, workspaceTarget, writeAs } from './support';

/**
 * Mechanisms 2, 3 and 5 of `workspace:<ws>`: the symbol table
 * (`/symbols`), context capsules (`/capsules`) and the blackboard
 * (`/blackboard`). Reads come from the stream's decision state, so a
 * value set is read back at once.
 */
export const workspaceRoutes = new Hono<AppEnv>();

export const SymbolBody = z.strictObject({
  value: z.string().min(1).max(2000),
  force: z.boolean().optional().meta({ description: 'Re-set an id that names another value' }),
  haid: Haid.optional(),
});
export const BlackboardBody = z.strictObject({
  value: z.union([z.string().max(4096), z.number(), z.boolean()]),
  haid: Haid.optional(),
});
export const CapsuleBody = z.strictObject({ ...CapsuleFields, haid: Haid.optional() });
export const SymbolsQuery = {
  reverse: z.string().min(1).max(2000).optional().meta({ description: 'A value: answers its id' }),
};
export const HydrateQuery = {
  ids: z.string().min(1).max(2000).meta({ description: 'Capsule ids, comma-separated' }),
};

function entryJson(key: string, name: 'id' | 'key', e: SymbolEntry) {
  return { [name]: key, value: e.value, set_by: e.by, set_at: e.at };
}

/**
 * An entry with its last versions, each value read back from its Wire (the
 * state keeps where each is: `VersionRef`).
 */
async function withHistory(
  c: Context<AppEnv>,
  stream: string,
  [name, key]: ['id' | 'key', string],
  e: SymbolEntry,
) {
  const wires = await wiresAt(
    streamStub(c.env, stream),
    e.history.map((v) => v.seq),
  );
  const history = e.history.map(({ seq, ...v }) => ({
    value: String(wires.get(seq)?.payload.value ?? ''),
    ...v,
  }));
  return { ...entryJson(key, name, e), history, versions: e.versions };
}

/** A table's entries as `{ [name]: key, value }`, by key. */
function listed(table: Record<string, SymbolEntry>, name: 'id' | 'key') {
  return Object.entries(table)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, e]) => ({ [name]: key, value: e.value }));
}

function nameParam(value: string, what: string) {
  const parsed = Name.safeParse(value);
  return parsed.success
    ? null
    : fail('invalid-query', `${what} "${value}": ${parsed.error.issues[0]?.message}`);
}

// --- symbols -----------------------------------------------------------------

workspaceRoutes.put('/workspaces/:ws/symbols/:id', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const id = c.req.param('id');
  const bad = nameParam(id, 'symbol id');
  if (bad) return problem(c, bad);
  const result = await writeAs(c, t.stream, SymbolBody, 'symbol.set', (body, haid) => ({
    id,
    value: body.value,
    ...(body.force ? { force: true } : {}),
    haid,
  }));
  if (!result.ok) return problem(c, result);
  const entry = ownValue((await workspaceState(c, t.ws)).symbols, id);
  return c.json({ symbol: entry ? await withHistory(c, t.stream, ['id', id], entry) : null });
});

workspaceRoutes.get('/workspaces/:ws/symbols', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const state = await workspaceState(c, t.ws);
  const reverse = c.req.query('reverse');
  if (reverse !== undefined) {
    const id = Object.entries(state.symbols).find(([, e]) => e.value === reverse)?.[0];
    if (!id) return problem(c, fail('not-found', `no symbol names "${reverse}"`));
    return c.json({ id, value: reverse });
  }
  return c.json({ protocol_version: PROTOCOL_VERSION, symbols: listed(state.symbols, 'id') });
});

workspaceRoutes.get('/workspaces/:ws/symbols/:id', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const id = c.req.param('id');
  const entry = ownValue((await workspaceState(c, t.ws)).symbols, id);
  if (!entry) return problem(c, fail('not-found', `no symbol "${id}" in workspace "${t.ws}"`));
  return c.json({ symbol: await withHistory(c, t.stream, ['id', id], entry) });
});

// --- blackboard --------------------------------------------------------------

workspaceRoutes.put('/workspaces/:ws/blackboard/:key', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const key = c.req.param('key');
  const bad = nameParam(key, 'blackboard key');
  if (bad) return problem(c, bad);
  const result = await writeAs(c, t.stream, BlackboardBody, 'blackboard.set', (body, haid) => ({
    key,
    value: String(body.value),
    haid,
  }));
  if (!result.ok) return problem(c, result);
  const entry = ownValue((await workspaceState(c, t.ws)).blackboard, key);
  return c.json({ entry: entry ? entryJson(key, 'key', entry) : null });
});

workspaceRoutes.get('/workspaces/:ws/blackboard', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const state = await workspaceState(c, t.ws);
  return c.json({ protocol_version: PROTOCOL_VERSION, entries: listed(state.blackboard, 'key') });
});

workspaceRoutes.get('/workspaces/:ws/blackboard/:key', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const key = c.req.param('key');
  const entry = ownValue((await workspaceState(c, t.ws)).blackboard, key);
  if (!entry) return problem(c, fail('not-found', `no blackboard key "${key}" in "${t.ws}"`));
  return c.json({ entry: await withHistory(c, t.stream, ['key', key], entry) });
});

// --- capsules ----------------------------------------------------------------

workspaceRoutes.put('/workspaces/:ws/capsules/:id', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const id = c.req.param('id');
  const bad = nameParam(id, 'capsule id');
  if (bad) return problem(c, bad);
  const result = await writeAs(
    c,
    t.stream,
    CapsuleBody,
    'capsule.written',
    ({ haid: _asked, ...fields }, haid) => ({ id, ...fields, haid }),
  );
  if (!result.ok) return problem(c, result);
  const capsule = ownValue((await workspaceState(c, t.ws)).capsules, id);
  return c.json({ capsule: capsule ? capsuleJson(capsule) : null });
});

workspaceRoutes.get('/workspaces/:ws/capsules', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const state = await workspaceState(c, t.ws);
  const capsules = Object.values(state.capsules)
    .sort((a, b) => a.id.localeCompare(b.id))
    .map(capsuleJson);
  return c.json({ capsules });
});

function hydrate(capsules: Record<string, Capsule>, ids: string[]) {
  const reached = closure(capsules, ids);
  if (!reached.ok) return fail('not-found', `no capsule "${reached.unknown}"`);
  return {
    ok: true as const,
    ids: reached.ids,
    capsules: reached.ids.map((id) => capsuleJson(ownValue(capsules, id) as Capsule)),
  };
}

// `GET …/capsules/hydrate?ids=` shares the route of `GET …/capsules/:id`: a
// literal beside a parameter would cost every request the faster router (see
// ARCHITECTURE.md, "One parameter per position"). `hydrate` is also a valid
// capsule id, so the query decides: with `ids` it is the hydrate endpoint,
// without it the capsule named `hydrate`.
workspaceRoutes.get('/workspaces/:ws/capsules/:id', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const id = c.req.param('id');
  if (id === 'hydrate' && c.req.query('ids') !== undefined) {
    const ids = (c.req.query('ids') ?? '').split(',').filter((x) => x.length > 0);
    if (ids.length === 0)
      return problem(c, fail('invalid-query', 'ids names at least one capsule'));
    const out = hydrate((await workspaceState(c, t.ws)).capsules, ids);
    if (!out.ok) return problem(c, out);
    return c.json({ capsules: out.capsules });
  }
  const capsule = ownValue((await workspaceState(c, t.ws)).capsules, id);
  if (!capsule) return problem(c, fail('not-found', `no capsule "${id}" in workspace "${t.ws}"`));
  return c.json({ capsule: capsuleJson(capsule) });
});

workspaceRoutes.get('/workspaces/:ws/capsules/:id/hydrate', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const out = hydrate((await workspaceState(c, t.ws)).capsules, [c.req.param('id')]);
  if (!out.ok) return problem(c, out);
  return c.json({ capsules: out.capsules });
});

workspaceRoutes.get('/workspaces/:ws/capsules/:id/deps', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const out = hydrate((await workspaceState(c, t.ws)).capsules, [c.req.param('id')]);
  if (!out.ok) return problem(c, out);
  return c.json({ ids: out.ids });
});
