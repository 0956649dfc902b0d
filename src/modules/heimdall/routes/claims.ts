import { Hono } from 'hono';
import * as z from 'zod';
import { type AppEnv, hasScope, principalOf, problem } from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { Haid, haidOf, surfacesStream } from '../identity';
import { claimGlobs } from '../surfaces/collision';
import { claimDraft, gateVerdict } from '../surfaces/gate';
import { ClaimMode, DEFAULT_TTL_MINUTES, Surfaces, Task, TtlMinutes } from '../surfaces/payloads';
import type { SurfaceRefusal } from '../surfaces/state';
import { appendAs, bodyOf, targetOf, viewOf } from './support';

/** `/v1/workspaces/{ws}/claims…`: surface claims through the collision gate. */
export const claimRoutes = new Hono<AppEnv>();

export const ClaimBody = z.strictObject({
  surfaces: Surfaces,
  task: Task,
  ttl_minutes: TtlMinutes.optional().meta({ description: `Default ${DEFAULT_TTL_MINUTES}` }),
  mode: ClaimMode.optional().meta({ description: 'Default `exclusive`' }),
  haid: Haid.optional().meta({
    description: "The token's subject (default) or `<subject>/<client>`",
  }),
});
export const RenewBody = z.strictObject({ ttl_minutes: TtlMinutes.optional() });
export const ReleaseBody = z.strictObject({ haid: Haid });
export const ForceReleaseBody = z.strictObject({ reason: z.string().min(1).max(1000) });

export interface ClaimJson {
  claim_id: string;
  haid: string;
  surfaces: string[];
  task: string;
  task_ref: string;
  mode: 'exclusive' | 'shared';
  claimed_at: string;
  expires_at: string;
}

export interface SurfacesView {
  claims: ClaimJson[];
  refusals: SurfaceRefusal[];
  refused: number;
  ended: Record<string, number>;
}

const EMPTY: SurfacesView = { claims: [], refusals: [], refused: 0, ended: {} };

async function surfacesView(c: Parameters<typeof viewOf>[0], ws: string): Promise<SurfacesView> {
  return (await viewOf<SurfacesView | null>(c, surfacesStream(ws))) ?? EMPTY;
}

/** Path params and the token's stream prefixes: the stream, or a problem response. */
const target = (c: Parameters<typeof viewOf>[0]) => targetOf(c, surfacesStream);

claimRoutes.post('/workspaces/:ws/claims', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, ClaimBody);
  if (!body.ok) return problem(c, body);
  const { surfaces, task, ttl_minutes, mode, haid: asked } = body.value;
  const who = haidOf(principalOf(c).sub, asked);
  if (!who.ok) return problem(c, who);
  const globs = claimGlobs(surfaces);
  if (!Array.isArray(globs)) return problem(c, globs);
  const now = Date.now();
  const draft = claimDraft({
    workspace: t.ws,
    haid: who.haid,
    surfaces,
    task,
    ...(mode ? { mode } : {}),
    ...(ttl_minutes ? { ttl_minutes } : {}),
    wire_id: 'unused',
    sender: principalOf(c).sub,
    now,
  });
  const result = await appendAs(c, t.stream, 'surface.claim', draft.payload, { ts: draft.ts });
  const verdict = gateVerdict(result, { surfaces, task });
  if (!verdict.ok) return problem(c, verdict);
  const claim: ClaimJson = {
    claim_id: verdict.claim_id,
    haid: who.haid,
    surfaces,
    task,
    task_ref: String(draft.payload.task_ref),
    mode: mode ?? 'exclusive',
    claimed_at: draft.ts,
    expires_at: verdict.expires_at ?? '',
  };
  return c.json({ claim }, 201);
});

claimRoutes.get('/workspaces/:ws/claims', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  const view = await surfacesView(c, t.ws);
  return c.json({ claims: view.claims, count: view.claims.length });
});

claimRoutes.get('/workspaces/:ws/claims/refusals', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  const view = await surfacesView(c, t.ws);
  return c.json({ refusals: view.refusals, refused: view.refused });
});

// `POST …/claims/release` shares the route of `POST …/claims/:claim_id/…`: a
// literal beside a parameter would cost every request the faster router (see
// ARCHITECTURE.md, "One parameter per position").
claimRoutes.post('/workspaces/:ws/claims/:claim_id', async (c) => {
  if (c.req.param('claim_id') !== 'release') return c.notFound();
  const t = target(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, ReleaseBody);
  if (!body.ok) return problem(c, body);
  const who = haidOf(principalOf(c).sub, body.value.haid);
  if (!who.ok) return problem(c, who);
  const view = await surfacesView(c, t.ws);
  const ids = view.claims.filter((claim) => claim.haid === who.haid).map((x) => x.claim_id);
  if (ids.length === 0) return c.json({ released: [] });
  const result = await appendAs(c, t.stream, 'surface.released', {
    claim_ids: ids,
    haid: who.haid,
  });
  if (!result.ok) return problem(c, result);
  return c.json({ released: ids });
});

claimRoutes.post('/workspaces/:ws/claims/:claim_id/renew', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  const body = await bodyOf(c, RenewBody);
  if (!body.ok) return problem(c, body);
  const claimId = c.req.param('claim_id');
  const ttl = body.value.ttl_minutes ?? DEFAULT_TTL_MINUTES;
  const held = (await surfacesView(c, t.ws)).claims.find((x) => x.claim_id === claimId);
  const result = await appendAs(c, t.stream, 'surface.renewed', {
    claim_id: claimId,
    haid: held?.haid ?? principalOf(c).sub,
    ttl_minutes: ttl,
  });
  if (!result.ok) return problem(c, result);
  const after = (await surfacesView(c, t.ws)).claims.find((x) => x.claim_id === claimId);
  if (!after) return problem(c, fail('claim-not-found', `claim "${claimId}" is no longer live`));
  return c.json({ claim: after });
});

claimRoutes.delete('/workspaces/:ws/claims/:claim_id', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  const claimId = c.req.param('claim_id');
  const held = (await surfacesView(c, t.ws)).claims.find((x) => x.claim_id === claimId);
  if (!held) {
    return problem(c, fail('claim-not-found', `no live claim "${claimId}" in workspace "${t.ws}"`));
  }
  const result = await appendAs(c, t.stream, 'surface.released', {
    claim_ids: [claimId],
    haid: held.haid,
  });
  if (!result.ok) return problem(c, result);
  return c.json({ released: [claimId] });
});

claimRoutes.post('/workspaces/:ws/claims/:claim_id/force-release', async (c) => {
  const t = target(c);
  if ('res' in t) return t.res;
  if (!hasScope(principalOf(c), 'admin')) {
    return problem(c, fail('forbidden', 'force-release needs an admin token'));
  }
  const body = await bodyOf(c, ForceReleaseBody);
  if (!body.ok) return problem(c, body);
  const claimId = c.req.param('claim_id');
  const held = (await surfacesView(c, t.ws)).claims.find((x) => x.claim_id === claimId);
  const result = await appendAs(c, t.stream, 'surface.force_released', {
    claim_id: claimId,
    reason: body.value.reason,
    ...(held ? { holder: held.haid } : {}),
  });
  if (!result.ok) return problem(c, result);
  return c.json({ released: [claimId], holder: held?.haid ?? null, reason: body.value.reason });
});
