import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { appendDecision, call, connect, type Era, withMcp } from './helpers/mcp';

/** The seed's heimdall-ledger-mcp tools, driven by the official SDK client. */

const wsId = () => uid('ws').toLowerCase();

describe.each<Era>(['session', 'sessionless'])('seed 001 claim tools, %s era', (era) => {
  it('claims via MCP with the client HAID woven into task_ref, visible over REST', async () => {
    const ws = wsId();
    const sub = `agent:${uid('q')}`;
    const c = await connect(era, { sub, name: 'cursor' });
    try {
      const made = await call(c, 'make_claim', {
        workspace: ws,
        surfaces: ['src/a/**'],
        task: 'T-9',
      });
      expect(made.isError).toBeFalsy();
      expect(made.structuredContent).toMatchObject({
        haid: `${sub}/cursor`,
        claim: { haid: `${sub}/cursor`, task_ref: `T-9@${sub}/cursor`, surfaces: ['src/a/**'] },
      });
      const res = await SELF.fetch(`http://localhost/v1/workspaces/${ws}/claims`, {
        headers: await authHeaders(sub),
      });
      const rest = (await res.json()) as { claims: { task_ref: string }[]; count: number };
      expect(rest.count).toBe(1);
      expect(rest.claims[0]?.task_ref).toBe(`T-9@${sub}/cursor`);

      const read = await call(c, 'read_claims', { workspace: ws });
      expect(read.structuredContent).toMatchObject({ count: 1, haid: `${sub}/cursor` });
    } finally {
      await c.close();
    }
  });

  it('refuses a colliding claim naming the argument and the holder', async () => {
    const ws = wsId();
    const holder = `agent:${uid('h')}`;
    const a = await connect(era, { sub: holder, name: 'cursor' });
    const b = await connect(era, { sub: `agent:${uid('o')}`, name: 'copilot' });
    try {
      await call(a, 'make_claim', { workspace: ws, surfaces: ['src/a/**'], task: 'T-1' });
      const lost = await call(b, 'make_claim', {
        workspace: ws,
        surfaces: ['src/a/b.ts'],
        task: 'T-2',
      });
      expect(lost.isError).toBe(true);
      expect(lost.text.problem).toMatchObject({
        argument: 'surfaces',
        status: 409,
        holder: `${holder}/cursor`,
        task: 'T-1',
      });
      expect(String(lost.text.error)).toMatch(/^argument "surfaces": /);
      // Globs that cannot meet are no collision.
      const fine = await call(b, 'make_claim', {
        workspace: ws,
        surfaces: ['docs/**'],
        task: 'T-3',
      });
      expect(fine.isError).toBeFalsy();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('releases the claims of your own HAID, and refuses another identity naming haid', async () => {
    const ws = wsId();
    const sub = `agent:${uid('r')}`;
    const c = await connect(era, { sub, name: 'claude-code' });
    const other = await connect(era, { sub: `agent:${uid('x')}` });
    try {
      await call(c, 'make_claim', { workspace: ws, surfaces: ['lib/**'], task: 'T-4' });
      const refused = await call(other, 'release_claim', {
        workspace: ws,
        haid: `${sub}/claude-code`,
      });
      expect(refused.isError).toBe(true);
      expect(refused.text.problem).toMatchObject({ argument: 'haid', status: 403 });
      const released = await call(c, 'release_claim', {
        workspace: ws,
        haid: `${sub}/claude-code`,
      });
      expect(released.isError).toBeFalsy();
      expect((released.structuredContent.released as string[]).length).toBe(1);
      const read = await call(c, 'read_claims', { workspace: ws });
      expect(read.structuredContent).toMatchObject({ count: 0 });
    } finally {
      await c.close();
      await other.close();
    }
  });

  it('refuses a bad glob or workspace naming the argument', () =>
    withMcp(era, async (c) => {
      const glob = await call(c, 'make_claim', {
        workspace: wsId(),
        surfaces: ['src/[a-'],
        task: 'T',
      });
      expect(glob.isError).toBe(true);
      expect(glob.text.problem).toMatchObject({ argument: 'surfaces', status: 422 });
      const ws = await c.client.callTool({
        name: 'read_claims',
        arguments: { workspace: 'Bad Workspace' },
      });
      expect(ws.isError).toBe(true);
      expect(JSON.stringify(ws.content)).toContain('workspace');
    }));
});

describe.each<Era>(['session', 'sessionless'])(
  'seed 001 capsule and decision tools, %s era',
  (era) => {
    it('reads a capsule, and names `id` when there is none', async () => {
      const ws = wsId();
      const sub = `agent:${uid('c')}`;
      const put = await SELF.fetch(`http://localhost/v1/workspaces/${ws}/capsules/w1`, {
        method: 'PUT',
        headers: { ...(await authHeaders(sub)), 'Content-Type': 'application/json' },
        body: JSON.stringify({ what: 'matching engine', where: 'F12', gotcha: 'ties by time' }),
      });
      expect(put.status).toBeLessThan(300);
      const c = await connect(era, { sub, name: 'cursor' });
      try {
        const read = await call(c, 'read_capsules', { workspace: ws, id: 'w1' });
        expect(read.structuredContent).toMatchObject({
          haid: `${sub}/cursor`,
          capsule: { id: 'w1', what: 'matching engine', gotcha: 'ties by time' },
        });
        const none = await call(c, 'read_capsules', { workspace: ws, id: 'w9' });
        expect(none.isError).toBe(true);
        expect(none.text.problem).toMatchObject({ argument: 'id', status: 404 });
      } finally {
        await c.close();
      }
    });

    it('appends HAID-attributed decisions and authors a cross-linked conflict record', async () => {
      const ws = wsId();
      const sub = `agent:${uid('d')}`;
      const c = await connect(era, { sub, name: 'copilot' });
      const auth = await authHeaders(sub);
      try {
        const decided = await appendDecision(
          c,
          ws,
          'Use picomatch',
          'Globs are matched by picomatch.',
        );
        expect(decided.structuredContent).toMatchObject({
          decision: { seq: 1, haid: `${sub}/copilot`, title: 'Use picomatch' },
        });
        const raised = await call(c, 'raise_conflict_pr', {
          workspace: ws,
          id: 'c1',
          title: 'src/a overlap',
          surfaces: ['src/a/**'],
          displaced_haid: 'agent:other/cursor',
          overriding_intent: 'hotfix the matcher',
        });
        const path = String(raised.structuredContent.path);
        expect(path).toMatch(/^conflicts\/\d{4}-\d{2}-\d{2}-c1\.md$/);
        expect(raised.structuredContent).toMatchObject({ decision_seq: 2, haid: `${sub}/copilot` });

        const doc = await SELF.fetch(`http://localhost/v1/workspaces/${ws}/documents/${path}`, {
          headers: auth,
        });
        expect(doc.status).toBe(200);
        const markdown = await doc.text();
        expect(markdown).toContain('# Conflict: src/a overlap');
        expect(markdown).toContain(`raised by: ${sub}/copilot`);
        const log = await SELF.fetch(
          `http://localhost/v1/workspaces/${ws}/documents/decisions.md`,
          {
            headers: auth,
          },
        );
        const decisions = await log.text();
        expect(decisions).toContain(`by: ${sub}/copilot`);
        expect(decisions).toContain('c1');

        const empty = await c.client.callTool({
          name: 'append_decision',
          arguments: { workspace: ws, title: '', body: 'x' },
        });
        expect(empty.isError).toBe(true);
        expect(JSON.stringify(empty.content)).toContain('title');
      } finally {
        await c.close();
      }
    });
  },
);
