import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { claimDraft, gateVerdict, releaseDraft } from '../../src/modules/heimdall/surfaces/gate';
import { streamStub } from '../../src/stream/stub';
import { ADMIN, api, type Json, racerSurfaces, wsId } from './helpers/heimdall';

const claims = (ws: string) => `/v1/workspaces/${ws}/claims`;
/** `sub` claims all of `a/` for task T, for `ttl_minutes`. */
const claimA = (ws: string, sub: string, ttl_minutes: number) =>
  api('POST', claims(ws), sub, { surfaces: ['a/**'], task: 'T', ttl_minutes });

async function wiresOf(ws: string): Promise<Json[]> {
  const res = await api('GET', `/v1/streams/surfaces:${ws}/wires?limit=1000`, 'agent:reader');
  return res.body.wires as Json[];
}

describe('surface claims through the collision gate', () => {
  it('grants a claim with task_ref and lists it live', async () => {
    const ws = wsId();
    const made = await api('POST', claims(ws), 'agent:quinn', {
      surfaces: ['src/a/**'],
      task: 'T-9',
      haid: 'agent:quinn/cursor',
    });
    expect(made.status).toBe(201);
    const claim = made.body.claim as Json;
    expect(claim).toMatchObject({
      haid: 'agent:quinn/cursor',
      surfaces: ['src/a/**'],
      task: 'T-9',
      task_ref: 'T-9@agent:quinn/cursor',
      mode: 'exclusive',
    });
    expect(Date.parse(String(claim.expires_at)) - Date.parse(String(claim.claimed_at))).toBe(
      30 * 60_000,
    );
    const listed = await api('GET', claims(ws), 'agent:other');
    expect(listed.body).toEqual({ claims: [claim], count: 1 });
  });

  it('decides overlap by paths: the three cases of the issue', async () => {
    const ws = wsId();
    expect(
      (await api('POST', claims(ws), 'agent:a', { surfaces: ['src/a/**'], task: 'A' })).status,
    ).toBe(201);
    const hit = await api('POST', claims(ws), 'agent:b', { surfaces: ['src/a/b.ts'], task: 'B' });
    expect(hit.status).toBe(409);
    expect(hit.type).toBe('application/problem+json');
    expect(String(hit.body.type)).toMatch(/\/surface-collision$/);
    expect(hit.body).toMatchObject({ holder: 'agent:a', surfaces: ['src/a/**'], task: 'A' });
    expect(typeof hit.body.claim_id).toBe('string');
    expect(typeof hit.body.expires_at).toBe('string');

    expect(
      (await api('POST', claims(ws), 'agent:c', { surfaces: ['src/**/*.ts'], task: 'C' })).status,
    ).toBe(409);
    expect(
      (await api('POST', claims(ws), 'agent:c', { surfaces: ['lib/**/*.ts'], task: 'C' })).status,
    ).toBe(201);
    expect(
      (await api('POST', claims(ws), 'agent:d', { surfaces: ['lib/x/*.md'], task: 'D' })).status,
    ).toBe(201);
    expect(
      (await api('POST', claims(ws), 'agent:e', { surfaces: ['docs/{a,b}/*.ts'], task: 'E' }))
        .status,
    ).toBe(201);
    const braced = await api('POST', claims(ws), 'agent:f', {
      surfaces: ['docs/b/c.ts'],
      task: 'F',
    });
    expect(braced.status).toBe(409);
    expect(braced.body.holder).toBe('agent:e');
  });

  it('lets one identity overlap itself, shared claims coexist, exclusive collides with shared', async () => {
    const ws = wsId();
    expect(
      (await api('POST', claims(ws), 'agent:a', { surfaces: ['x/**'], task: '1' })).status,
    ).toBe(201);
    expect(
      (
        await api('POST', claims(ws), 'agent:a', {
          surfaces: ['x/y.ts'],
          task: '2',
          haid: 'agent:a/cursor',
        })
      ).status,
    ).toBe(409); // another haid
    expect(
      (await api('POST', claims(ws), 'agent:a', { surfaces: ['x/y.ts'], task: '2' })).status,
    ).toBe(201); // same haid
    const shared = { surfaces: ['docs/**'], task: 'read', mode: 'shared' };
    expect((await api('POST', claims(ws), 'agent:s1', shared)).status).toBe(201);
    expect((await api('POST', claims(ws), 'agent:s2', shared)).status).toBe(201);
    const excl = await api('POST', claims(ws), 'agent:s3', { surfaces: ['docs/a.md'], task: 'w' });
    expect(excl.status).toBe(409);
    expect(['agent:s1', 'agent:s2']).toContain(excl.body.holder);
    const sharedOverExclusive = await api('POST', claims(ws), 'agent:s4', {
      ...shared,
      surfaces: ['x/z'],
    });
    expect(sharedOverExclusive.status).toBe(409);
  });

  it('refuses unsupported globs (422 naming the glob), a foreign haid (403), and stores nothing', async () => {
    const ws = wsId();
    for (const glob of ['!src/**', 'src/@(a|b)', '/abs', 'a//b', 'a/[!b]']) {
      const bad = await api('POST', claims(ws), 'agent:a', { surfaces: ['ok/*', glob], task: 'T' });
      expect(bad.status, glob).toBe(422);
      expect(String(bad.body.type)).toMatch(/\/invalid-glob$/);
      expect(String(bad.body.detail)).toContain(`"${glob}"`);
    }
    const foreign = await api('POST', claims(ws), 'agent:a', {
      surfaces: ['a'],
      task: 'T',
      haid: 'agent:b',
    });
    expect(foreign.status).toBe(403);
    expect(String(foreign.body.detail)).toContain('haid');
    const empty = await api('POST', claims(ws), 'agent:a', { surfaces: [], task: 'T' });
    expect(empty.status).toBe(422);
    expect((await api('GET', `/v1/streams/surfaces:${ws}`, 'agent:a')).status).toBe(404);
  });

  it('renews and releases for the holder only; an admin force-releases with a reason', async () => {
    const ws = wsId();
    const made = await claimA(ws, 'agent:h', 5);
    const id = String((made.body.claim as Json).claim_id);
    expect(
      (await api('POST', `${claims(ws)}/${id}/renew`, 'agent:x', { ttl_minutes: 60 })).status,
    ).toBe(403);
    const renewed = await api('POST', `${claims(ws)}/${id}/renew`, 'agent:h', { ttl_minutes: 60 });
    expect(renewed.status).toBe(200);
    const until = Date.parse(String((renewed.body.claim as Json).expires_at));
    expect(until - Date.now()).toBeGreaterThan(59 * 60_000);
    expect((await api('DELETE', `${claims(ws)}/${id}`, 'agent:x')).status).toBe(403);
    expect((await api('DELETE', `${claims(ws)}/${id}`, 'agent:h')).body).toEqual({
      released: [id],
    });
    expect((await api('DELETE', `${claims(ws)}/${id}`, 'agent:h')).status).toBe(404);

    const one = await api('POST', claims(ws), 'agent:h', {
      surfaces: ['b/*'],
      task: 'T',
      haid: 'agent:h/cursor',
    });
    const two = await api('POST', claims(ws), 'agent:h', {
      surfaces: ['c/*'],
      task: 'U',
      haid: 'agent:h/cursor',
    });
    await api('POST', claims(ws), 'agent:h', { surfaces: ['d/*'], task: 'V' });
    const all = await api('POST', `${claims(ws)}/release`, 'agent:h', { haid: 'agent:h/cursor' });
    expect(all.body).toEqual({
      released: [(one.body.claim as Json).claim_id, (two.body.claim as Json).claim_id],
    });
    expect(
      (await api('POST', `${claims(ws)}/release`, 'agent:x', { haid: 'agent:h' })).status,
    ).toBe(403);

    const left = ((await api('GET', claims(ws), 'agent:h')).body.claims as Json[])[0];
    const leftId = String(left?.claim_id);
    expect(
      (await api('POST', `${claims(ws)}/${leftId}/force-release`, 'agent:h', { reason: 'x' }))
        .status,
    ).toBe(403);
    const forced = await api('POST', `${claims(ws)}/${leftId}/force-release`, ADMIN, {
      reason: 'agent crashed',
    });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      released: [leftId],
      holder: 'agent:h',
      reason: 'agent crashed',
    });
    expect((await api('GET', claims(ws), 'agent:h')).body.count).toBe(0);
    const types = (await wiresOf(ws)).map((w) => w.type);
    expect(types).toEqual([
      'surface.claim',
      'surface.renewed',
      'surface.released',
      'surface.claim',
      'surface.claim',
      'surface.claim',
      'surface.released',
      'surface.force_released',
    ]);
  });

  it('frees an expired claim with nothing running: the alarm writes surface.expired', async () => {
    const ws = wsId();
    const made = await claimA(ws, 'agent:old', 0.05);
    expect(made.status).toBe(201);
    expect(
      (await api('POST', claims(ws), 'agent:new', { surfaces: ['a/b'], task: 'U' })).status,
    ).toBe(409);
    await new Promise((r) => setTimeout(r, 3200));
    // Live is decided by the clock, before any alarm runs…
    expect((await api('GET', claims(ws), 'agent:new')).body.count).toBe(0);
    // …and the alarm records the expiry as a Wire.
    const stub = env.STREAMS.get(env.STREAMS.idFromName(`surfaces:${ws}`));
    await runDurableObjectAlarm(stub);
    const wires = await wiresOf(ws);
    const expired = wires.find((w) => w.type === 'surface.expired');
    expect(expired?.payload).toMatchObject({
      claim_id: (made.body.claim as Json).claim_id,
      haid: 'agent:old',
    });
    expect(wires.map((w) => w.type)).toEqual([
      'surface.claim',
      'surface.refused',
      'surface.expired',
    ]);
    expect(
      (await api('POST', claims(ws), 'agent:new', { surfaces: ['a/b'], task: 'U' })).status,
    ).toBe(201);
  });

  it('records each refusal as a Wire naming holder, globs, task and expiry', async () => {
    const ws = wsId();
    const held = await api('POST', claims(ws), 'agent:a', { surfaces: ['src/**'], task: 'A' });
    const lost = await api('POST', claims(ws), 'agent:b', { surfaces: ['src/x.ts'], task: 'B' });
    expect(lost.status).toBe(409);
    const refusal = (await wiresOf(ws)).find((w) => w.type === 'surface.refused');
    expect(refusal?.payload).toMatchObject({
      haid: 'agent:b',
      surfaces: ['src/x.ts'],
      task: 'B',
      holder: 'agent:a',
      holder_claim_id: (held.body.claim as Json).claim_id,
      holder_surfaces: ['src/**'],
      holder_task: 'A',
      holder_expires_at: (held.body.claim as Json).expires_at,
      overlap: { mine: 'src/x.ts', theirs: 'src/**', example_path: 'src/x.ts' },
    });
    const refusals = await api('GET', `${claims(ws)}/refusals`, 'agent:b');
    expect(refusals.body.refused).toBe(1);
  });

  it('50 identities racing for overlapping globs: one holder per contested surface, every loser told the holder', async () => {
    const ws = wsId('race');
    const AREAS = 5;
    const ids = Array.from({ length: 50 }, (_, i) => `agent:racer-${i}`);
    const results = await Promise.all(
      ids.map((sub, i) =>
        api('POST', claims(ws), sub, {
          surfaces: racerSurfaces(i, AREAS),
          task: `t${i}`,
        }),
      ),
    );
    const live = (await api('GET', claims(ws), 'agent:reader')).body.claims as Json[];
    expect(live).toHaveLength(AREAS);
    for (let area = 0; area < AREAS; area++) {
      const holder = live.find((c) =>
        String((c.surfaces as string[])[0]).startsWith(`area${area}/`),
      );
      expect(holder).toBeDefined();
      results.forEach((res, i) => {
        if (i % AREAS !== area) return;
        if (ids[i] === holder?.haid) {
          expect(res.status).toBe(201);
        } else {
          expect(res.status, `${ids[i]}`).toBe(409);
          expect(res.body.holder).toBe(holder?.haid);
          expect(res.body.claim_id).toBe(holder?.claim_id);
        }
      });
    }
    expect(results.filter((r) => r.status === 201)).toHaveLength(AREAS);
  });
});

describe('the gate as another module reaches it (a reserve hook appending over RPC)', () => {
  it('grants, refuses with the holder, replays a retried claim, and takes the release back', async () => {
    const ws = wsId('gate');
    const stub = streamStub(env, `surfaces:${ws}`);
    const now = Date.now();
    const first = claimDraft({
      workspace: ws,
      haid: 'agent:gsd-1',
      surfaces: ['src/app/**'],
      task: 'plan-1',
      wire_id: 'gsd-file-1',
      sender: 'agent:gsd-1',
      now,
    });
    const granted = gateVerdict(await stub.append(first), {
      surfaces: ['src/app/**'],
      task: 'plan-1',
    });
    expect(granted).toMatchObject({ ok: true, claim_id: 'gsd-file-1', replay: false });
    const retried = gateVerdict(await stub.append(first), {
      surfaces: ['src/app/**'],
      task: 'plan-1',
    });
    expect(retried).toMatchObject({ ok: true, claim_id: 'gsd-file-1', replay: true });

    const rival = claimDraft({
      workspace: ws,
      haid: 'agent:gsd-2',
      surfaces: ['src/app/main.ts'],
      task: 'plan-2',
      wire_id: 'gsd-file-2',
      sender: 'agent:gsd-2',
      now,
    });
    const refused = gateVerdict(await stub.append(rival), {
      surfaces: ['src/app/main.ts'],
      task: 'plan-2',
    });
    expect(refused).toMatchObject({
      ok: false,
      code: 'surface-collision',
      extra: {
        holder: 'agent:gsd-1',
        claim_id: 'gsd-file-1',
        task: 'plan-1',
        surfaces: ['src/app/**'],
      },
    });
    // The REST route sees the same gate.
    const rest = await api('POST', claims(ws), 'agent:gsd-3', {
      surfaces: ['src/app/x'],
      task: 'y',
    });
    expect(rest.body.holder).toBe('agent:gsd-1');

    const released = await stub.append(
      releaseDraft({
        workspace: ws,
        claim_id: 'gsd-file-1',
        haid: 'agent:gsd-1',
        sender: 'system',
        wire_id: 'gsd-free-1',
        now,
      }),
    );
    expect(released.ok).toBe(true);
    const again = gateVerdict(await stub.append({ ...rival, wire_id: 'gsd-file-2b' }), {
      surfaces: [],
      task: '',
    });
    expect(again.ok).toBe(true);
  });

  it('applies the same gate to claims posted on the generic streams endpoint, bound to the sender', async () => {
    const ws = wsId('generic');
    const draft = claimDraft({
      workspace: ws,
      haid: 'agent:b',
      surfaces: ['a'],
      task: 't',
      wire_id: 'gen-1',
      sender: 'agent:a',
      now: Date.now(),
    });
    const res = await api('POST', `/v1/streams/surfaces:${ws}/wires`, 'agent:a', draft);
    expect(res.status).toBe(403);
    expect(String(res.body.detail)).toContain('haid');
    const forged = await api('POST', `/v1/streams/surfaces:${ws}/wires`, 'agent:a', {
      ...draft,
      wire_id: 'gen-2',
      type: 'surface.expired',
      payload: { claim_id: 'x' },
    });
    expect(forged.status).toBe(403);
  });
});

describe('glob limits the gate decides quickly', () => {
  it('refuses a glob of many brace groups at once, counting its expansions before expanding', async () => {
    const glob = `x/${'{a,b}'.repeat(20)}`; // 2^20 expansions: seconds to expand one by one
    const started = Date.now();
    const res = await api('POST', claims(wsId('br')), 'agent:a', { surfaces: [glob], task: 'T' });
    expect(res.status).toBe(422);
    expect(String(res.body.type)).toMatch(/\/invalid-glob$/);
    expect(String(res.body.detail)).toContain('expand to more than 64 globs');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a claim whose globs expand to more than 128 alternatives in all, naming surfaces', async () => {
    const ws = wsId('alts');
    const globs = (p: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${p}${i}/{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}/**/*.ts`);
    const big = await api('POST', claims(ws), 'agent:a', { surfaces: globs('x', 32), task: 'A' });
    expect(big.status).toBe(422);
    expect(String(big.body.type)).toMatch(/\/invalid-glob$/);
    expect((big.body.errors as Json[])[0]).toMatchObject({ path: 'surfaces' });
    expect(big.body).toMatchObject({ alternatives: 2048, max_alternatives: 128 });
    // Two claims at the limit are decided quickly.
    expect(
      (await api('POST', claims(ws), 'agent:a', { surfaces: globs('x', 2), task: 'A' })).status,
    ).toBe(201);
    const started = Date.now();
    const second = await api('POST', claims(ws), 'agent:b', { surfaces: globs('y', 2), task: 'B' });
    expect(second.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses globs picomatch reads otherwise than the gate: "+" after "]" or "}", and quotes', async () => {
    const ws = wsId('pm');
    for (const glob of ['src/[a-z]+.ts', 'src/{a,b}+.ts', 'src/"a".ts', "src/'a'.ts"]) {
      const bad = await api('POST', claims(ws), 'agent:a', { surfaces: [glob], task: 'A' });
      expect(bad.status, glob).toBe(422);
      expect(String(bad.body.type)).toMatch(/\/invalid-glob$/);
      expect(String(bad.body.detail)).toContain(`"${glob}"`);
    }
    // "+" elsewhere is a literal to both: src/a+.ts is one file.
    expect(
      (await api('POST', claims(ws), 'agent:a', { surfaces: ['src/a+.ts'], task: 'A' })).status,
    ).toBe(201);
    const other = await api('POST', claims(ws), 'agent:b', { surfaces: ['src/*.ts'], task: 'B' });
    expect(other.status).toBe(409);
  });
});
