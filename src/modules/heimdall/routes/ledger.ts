import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, problem } from '../../../api/module-kit';
import { hasOwnKey, ownValue } from '../../../kernel/records';
import { fail } from '../../../protocol';
import { Haid } from '../identity';
import { type Capsule, capsuleMarkdown, closure } from '../workspace/capsules';
import { deltaLine, deltaPercent } from '../workspace/ledger';
import { PROTOCOL_VERSION } from '../workspace/messages';
import { LedgerLogFields, Name, Role, Tokens } from '../workspace/payloads';
import { appendAs, bodyOf, callerHaid, workspaceState, workspaceTarget, writeAs } from './support';

/** Mechanisms 4 and 6: delta briefs (`/briefs`) and the token ledger (`/ledger/…`). */
export const ledgerRoutes = new Hono<AppEnv>();

export const LedgerLogBody = z.strictObject(LedgerLogFields);
export const LedgerBaselineBody = z.strictObject({
  role: Role,
  tokens: Tokens,
  haid: Haid.optional(),
});
export const DeltaQuery = { role: Role.meta({ description: 'The role, e.g. `orchestration`' }) };
export const BriefBody = z.strictObject({
  task: z.string().min(1).max(200),
  spec: z.string().min(1).max(4000),
  symbols: z.array(Name).max(100).default([]),
  capsules: z.array(Name).max(100).default([]),
  invariants: z.string().max(1000).nullable().default(null).meta({
    description: 'A reference (e.g. `INVARIANTS.md`), never the body',
  }),
  role: Role.default('orchestration'),
  tokens: Tokens.optional().meta({
    description:
      "The brief's token count, measured by the caller with a real tokenizer (the CLI uses gpt-tokenizer). Absent: an estimate (characters / 4, rounded up), flagged `tokens_estimated`.",
  }),
  dry_run: z.boolean().optional().meta({
    description: 'Answer the brief without storing or logging it (to count its tokens first)',
  }),
  haid: Haid.optional(),
});

ledgerRoutes.post('/workspaces/:ws/ledger/log', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const result = await writeAs(c, t.stream, LedgerLogBody, 'ledger.logged');
  if (!result.ok) return problem(c, result);
  const { value, haid } = result;
  const totals = ownValue((await workspaceState(c, t.ws)).ledger.totals, value.role);
  return c.json({ logged: { ...value, haid }, role_total: totals?.tokens ?? 0 }, 201);
});

ledgerRoutes.post('/workspaces/:ws/ledger/baseline', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const result = await writeAs(c, t.stream, LedgerBaselineBody, 'ledger.baseline');
  if (!result.ok) return problem(c, result);
  return c.json({ baseline: { role: result.value.role, tokens: result.value.tokens } });
});

ledgerRoutes.get('/workspaces/:ws/ledger/delta', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const role = Role.safeParse(c.req.query('role'));
  if (!role.success)
    return problem(c, fail('invalid-query', 'role: give a role, e.g. ?role=orchestration'));
  const { ledger } = await workspaceState(c, t.ws);
  const baseline = ownValue(ledger.baselines, role.data);
  if (baseline === undefined) {
    return problem(
      c,
      fail('not-found', `no v1 baseline for role "${role.data}" (POST …/ledger/baseline)`),
    );
  }
  const totals = ownValue(ledger.totals, role.data);
  const measured = totals?.tokens ?? 0;
  return c.json({
    role: role.data,
    baseline,
    measured,
    lines: totals?.lines ?? 0,
    delta_percent: deltaPercent(baseline, measured),
    line: deltaLine(role.data, baseline, measured),
  });
});

ledgerRoutes.get('/workspaces/:ws/ledger/report', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const { ledger } = await workspaceState(c, t.ws);
  const names = [
    ...new Set([...Object.keys(ledger.totals), ...Object.keys(ledger.baselines)]),
  ].sort();
  const roles = names.map((role) => ({
    role,
    tokens: ownValue(ledger.totals, role)?.tokens ?? 0,
    lines: ownValue(ledger.totals, role)?.lines ?? 0,
    baseline: ownValue(ledger.baselines, role) ?? null,
  }));
  return c.json({
    protocol_version: PROTOCOL_VERSION,
    roles,
    total_tokens: roles.reduce((sum, r) => sum + r.tokens, 0),
  });
});

/** The brief as the spawned agent reads it: spec, resolved symbols, capsule closure, invariants ref. */
function briefText(o: {
  task: string;
  spec: string;
  symbols: [string, string][];
  capsules: Capsule[];
  invariants: string | null;
}): string {
  const parts = [`# Task ${o.task}`, '', o.spec, ''];
  if (o.symbols.length > 0)
    parts.push('## Symbols', ...o.symbols.map(([id, v]) => `${id}\t${v}`), '');
  if (o.capsules.length > 0) {
    parts.push('## Capsules');
    for (const capsule of o.capsules)
      parts.push(`### ${capsule.id}`, capsuleMarkdown(capsule).trimEnd());
    parts.push('');
  }
  if (o.invariants) parts.push(`Invariants: see ${o.invariants}`, '');
  return parts.join('\n');
}

ledgerRoutes.post('/workspaces/:ws/briefs', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, BriefBody);
  if (!body.ok) return problem(c, body);
  const who = callerHaid(c, body.value.haid);
  if (!who.ok) return problem(c, who);
  const b = body.value;
  const state = await workspaceState(c, t.ws);
  const unknownSymbol = b.symbols.find((id) => !hasOwnKey(state.symbols, id));
  if (unknownSymbol) {
    return problem(
      c,
      fail('unknown-reference', `symbols: no symbol "${unknownSymbol}" in "${t.ws}"`, {
        extra: { symbol: unknownSymbol },
      }),
    );
  }
  const reached = closure(state.capsules, b.capsules);
  if (!reached.ok) {
    return problem(
      c,
      fail('unknown-reference', `capsules: no capsule "${reached.unknown}" in "${t.ws}"`, {
        extra: { capsule: reached.unknown },
      }),
    );
  }
  const symbols = b.symbols.map((id): [string, string] => [
    id,
    ownValue(state.symbols, id)?.value ?? '',
  ]);
  const capsules = reached.ids.map((id) => ownValue(state.capsules, id) as Capsule);
  const text = briefText({
    task: b.task,
    spec: b.spec,
    symbols,
    capsules,
    invariants: b.invariants,
  });
  const estimated = b.tokens === undefined;
  const tokens = b.tokens ?? Math.ceil(text.length / 4);
  const brief = {
    task: b.task,
    spec: b.spec,
    symbols: Object.fromEntries(symbols),
    capsules: reached.ids,
    invariants: b.invariants,
    text,
  };
  if (b.dry_run) return c.json({ brief, tokens, tokens_estimated: estimated, ledger: null });
  const result = await appendAs(c, t.stream, 'brief.built', {
    task: b.task,
    spec: b.spec,
    symbols: b.symbols,
    capsules: b.capsules,
    invariants: b.invariants,
    role: b.role,
    tokens,
    ...(estimated ? { tokens_estimated: true } : {}),
    haid: who.haid,
  });
  if (!result.ok) return problem(c, result);
  return c.json(
    {
      brief,
      tokens,
      tokens_estimated: estimated,
      ledger: { role: b.role, kind: 'delta_brief', tokens, msg_id: b.task },
    },
    201,
  );
});
