import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { uid } from './helpers/coordination';
import { as, emit, type Json, projectState, SEED_EVENTS, view } from './helpers/gsd';

/**
 * What the project says about its files and what seed 001's surface-claim
 * gate holds stay the same: no claim outlives its release, a refused request
 * leaves nothing behind, and a path is one file, never a pattern.
 */

async function workspaceClaims(project: string): Promise<Json[]> {
  const res = await SELF.fetch(`https://ws.test/v1/workspaces/${project}/claims`, {
    headers: await as('agent:viewer'),
  });
  return ((await res.json()) as { claims: Json[] }).claims;
}

const rivalClaim = (project: string, path: string = SEED_EVENTS.fileClaimed.path) =>
  emit(project, { ...SEED_EVENTS.fileClaimed, agent: 'rival', path }, 'agent:rival');

describe('re-claiming a file one already holds', () => {
  it('leaves no gate claim behind after file:released when one batch claims the path twice', async () => {
    const project = uid('reclaim');
    expect((await emit(project, [SEED_EVENTS.fileClaimed, SEED_EVENTS.fileClaimed])).status).toBe(
      201,
    );
    expect(await workspaceClaims(project)).toHaveLength(1);
    expect((await emit(project, SEED_EVENTS.fileReleased)).status).toBe(201);
    expect((await projectState(project)).claims).toEqual([]);
    const rival = await rivalClaim(project);
    expect(rival.status, JSON.stringify(rival.body)).toBe(201);
    expect(await workspaceClaims(project)).toMatchObject([{ haid: 'agent:rival' }]);
  });

  it('leaves no gate claim behind after file:released when two requests claim it at once', async () => {
    const project = uid('reclaim-race');
    const answers = await Promise.all([
      emit(project, SEED_EVENTS.fileClaimed),
      emit(project, SEED_EVENTS.fileClaimed),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(await workspaceClaims(project)).toHaveLength(1);
    expect((await emit(project, SEED_EVENTS.fileReleased)).status).toBe(201);
    expect((await projectState(project)).claims).toEqual([]);
    const rival = await rivalClaim(project);
    expect(rival.status, JSON.stringify(rival.body)).toBe(201);
    expect(await workspaceClaims(project)).toMatchObject([{ haid: 'agent:rival' }]);
  });
});

describe('a refused keyed batch that claimed a file', () => {
  it('is refused the same way again, and the key then carries a corrected batch whose claim the gate enforces', async () => {
    const project = uid('key-claim');
    const key = { 'Idempotency-Key': 'batch-7' };
    const refusedBatch = [
      SEED_EVENTS.fileClaimed,
      { ...SEED_EVENTS.fileReleased, path: 'src/not-held.ts' },
    ];
    const refused = await emit(project, refusedBatch, undefined, key);
    expect(refused.status).toBe(409);
    expect(await workspaceClaims(project)).toEqual([]);
    const same = await emit(project, refusedBatch, undefined, key);
    expect(same.body, JSON.stringify(same.body)).toMatchObject({
      type: '/problems/file-not-held',
      index: 1,
    });
    expect(await workspaceClaims(project)).toEqual([]);

    const corrected = await emit(project, [SEED_EVENTS.fileClaimed], undefined, key);
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(201);
    expect((await projectState(project)).claims).toMatchObject([
      { path: 'src/api/users.ts', holder: 'agent:gsd-executor' },
    ]);
    expect(await workspaceClaims(project)).toMatchObject([{ haid: 'agent:gsd-executor' }]);
    expect((await rivalClaim(project)).status).toBe(409);
  });
});

describe('a claimed path is one file, never a pattern', () => {
  it('claims "src/*" as the file of that name only', async () => {
    const project = uid('literal-star');
    expect((await emit(project, { ...SEED_EVENTS.fileClaimed, path: 'src/*' })).status).toBe(201);
    expect(await workspaceClaims(project)).toMatchObject([{ surfaces: ['src/[*]'] }]);
    expect((await projectState(project)).claims).toMatchObject([{ path: 'src/*' }]);
    const other = await rivalClaim(project, 'src/users.ts');
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect((await rivalClaim(project, 'src/*')).status).toBe(409);
  });

  it('claims paths made of glob syntax (Next.js routes) as those files only', async () => {
    const project = uid('literal-brackets');
    const paths = [
      'app/[id]/page.tsx',
      'app/[[...slug]]/page.tsx',
      'app/(auth)/login/page.tsx',
      'src/{a,b}|c++(1)+.ts',
    ];
    for (const path of paths) {
      const claimed = await emit(project, { ...SEED_EVENTS.fileClaimed, path });
      expect(claimed.status, `${path}: ${JSON.stringify(claimed.body)}`).toBe(201);
    }
    expect((await workspaceClaims(project)).map((c) => c.surfaces)).toEqual(
      expect.arrayContaining([
        ['app/[[]id[]]/page.tsx'],
        ['app/[[][[]...slug[]][]]/page.tsx'],
        ['app/[(]auth[)]/login/page.tsx'],
        ['src/[{]a,b[}][|]c++[(]1[)][+].ts'],
      ]),
    );
    const held = (await projectState(project)).claims as { path: string }[];
    expect(held.map((c) => c.path)).toEqual(expect.arrayContaining(paths));
    // The same files are held against a rival; what their syntax would match is not.
    for (const path of paths) expect((await rivalClaim(project, path)).status, path).toBe(409);
    for (const path of ['app/i/page.tsx', 'app/auth/login/page.tsx', 'src/a.ts', 'src/c.ts']) {
      expect((await rivalClaim(project, path)).status, path).toBe(201);
    }
  });

  it('refuses with 422 naming path what the gate cannot hold literally, and stores nothing', async () => {
    const project = uid('literal-refused');
    const cases: [string, RegExp][] = [
      ['src/a\\b.ts', /"\\" cannot be claimed/],
      ['src/"quoted".ts', /""" cannot be claimed/],
      [`src/${'a'.repeat(290)}.ts`, /at most 256 characters/],
      ['./src/users.ts', /not a relative file path/],
    ];
    for (const [path, why] of cases) {
      const refused = await emit(project, { ...SEED_EVENTS.fileClaimed, path });
      expect(refused.status, path).toBe(422);
      expect(String(refused.body.detail), path).toMatch(/^path: /);
      expect(String(refused.body.detail), path).toMatch(why);
    }
    expect((await view(project)).body.lastEventId).toBe(0);
    expect(await workspaceClaims(project)).toEqual([]);
    expect((await rivalClaim(project, 'src/ab.ts')).status).toBe(201);
  });
});
