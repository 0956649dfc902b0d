import { env, SELF } from 'cloudflare:test';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { untilAnchored } from './helpers/anchoring';
import { expectNothingStored, expectProblem } from './helpers/attack';
import { authHeaders, coordinatorHeaders, tokenFor } from './helpers/auth';
import { post, readAll, uniqueStream, wire11 } from './helpers/wires';

const base = 'https://ws.test';

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

describe('who may call /v1 at all', () => {
  it('refuses an append without a token with 401 and stores nothing', async () => {
    const s = uniqueStream();
    const res = await SELF.fetch(`${base}/v1/streams/${s}/wires`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(wire11(s)),
    });
    const problem = await expectProblem(res, 401, 'unauthenticated');
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(problem.detail).toContain('Authorization: Bearer');
    await expectNothingStored(s);
  });

  it('refuses reads without a token too', async () => {
    const res = await SELF.fetch(`${base}/v1/streams/${uniqueStream()}/wires`);
    await expectProblem(res, 401, 'unauthenticated');
  });

  it('refuses an expired token', async () => {
    const s = uniqueStream();
    const token = await tokenFor({ sub: 'agent:quinn-07', expiresIn: -10 });
    const res = await post(s, wire11(s), bearer(token));
    const problem = await expectProblem(res, 401, 'unauthenticated');
    expect(problem.detail).toContain('expired');
    await expectNothingStored(s);
  });

  it('refuses a token once it expires, even one that was accepted (and so verified) before', async () => {
    const s = uniqueStream();
    const token = await tokenFor({ sub: 'agent:quinn-07', expiresIn: 2 });
    expect((await post(s, wire11(s), bearer(token))).status).toBe(201);
    // JWT exp has one-second resolution: wait past it, then the same token must fail.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const problem = await expectProblem(
      await post(s, wire11(s), bearer(token)),
      401,
      'unauthenticated',
    );
    expect(problem.detail).toContain('expired');
  });

  it('refuses a token whose signature was tampered with', async () => {
    const s = uniqueStream();
    const token = await tokenFor({ sub: 'agent:quinn-07' });
    const [header, , signature] = token.split('.');
    // Same signature, escalated claims: the signature no longer matches.
    const forged = btoa(
      JSON.stringify({ sub: 'agent:quinn-07', scopes: ['admin'], roles: [], iat: 1, exp: 4e9 }),
    )
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    const res = await post(s, wire11(s), bearer(`${header}.${forged}.${signature}`));
    await expectProblem(res, 401, 'unauthenticated');
    await expectNothingStored(s);
  });

  it('refuses a token signed with another key', async () => {
    const s = uniqueStream();
    const token = await tokenFor({ sub: 'agent:quinn-07', secret: 'some-other-deployment-secret' });
    const res = await post(s, wire11(s), bearer(token));
    await expectProblem(res, 401, 'unauthenticated');
    await expectNothingStored(s);
  });

  it('refuses an unsigned ("alg: none") token', async () => {
    const s = uniqueStream();
    const enc = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, '');
    const none = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ sub: 'agent:quinn-07', scopes: ['admin'], exp: 4e9, iat: 1 })}.`;
    await expectProblem(await post(s, wire11(s), bearer(none)), 401, 'unauthenticated');
    await expectNothingStored(s);
  });

  it('refuses a validly signed token without Wirestream claims', async () => {
    const s = uniqueStream();
    const token = await sign({ sub: 'agent:quinn-07', exp: 4e9 }, env.TOKEN_SECRET ?? '', 'HS256');
    const problem = await expectProblem(
      await post(s, wire11(s), bearer(token)),
      401,
      'unauthenticated',
    );
    expect(problem.detail).toContain('scopes');
    await expectNothingStored(s);
  });

  it('keeps the Wire schema public', async () => {
    expect((await SELF.fetch(`${base}/v1/schema/wire.json`)).status).toBe(200);
  });
});

describe('what a token allows', () => {
  it('refuses a sender that is not the token subject with 403 naming both', async () => {
    const s = uniqueStream();
    const res = await post(
      s,
      wire11(s, { sender: 'agent:quinn-07' }),
      await authHeaders('agent:mallory'),
    );
    const problem = await expectProblem(res, 403, 'forbidden');
    expect(problem.detail).toBe(
      'sender "agent:quinn-07" does not match the token\'s subject "agent:mallory"',
    );
    expect(problem).toMatchObject({ sender: 'agent:quinn-07', token_sub: 'agent:mallory' });
    await expectNothingStored(s);
  });

  it('reserves the sender "system" for the coordinator itself', async () => {
    const s = uniqueStream();
    const res = await post(s, wire11(s, { sender: 'system' }), await coordinatorHeaders());
    const problem = await expectProblem(res, 403, 'forbidden');
    expect(problem.detail).toContain('reserved');
    await expectNothingStored(s);
  });

  it('lets a read-only token read but not append', async () => {
    const s = uniqueStream();
    const reader = await authHeaders('agent:quinn-07', ['read']);
    const res = await post(s, wire11(s), reader);
    const problem = await expectProblem(res, 403, 'forbidden');
    expect(problem.detail).toContain('"append"');
    await expectNothingStored(s);
    const read = await SELF.fetch(`${base}/v1/streams/${s}/wires`, { headers: reader });
    expect(read.status).toBe(200);
  });

  it('refuses a token without the read scope on reads', async () => {
    const writer = await authHeaders('agent:quinn-07', ['append']);
    const res = await SELF.fetch(`${base}/v1/streams/${uniqueStream()}/wires`, { headers: writer });
    await expectProblem(res, 403, 'forbidden');
  });

  it('keeps a prefix-limited token inside its streams, for writes and reads', async () => {
    const mine = uniqueStream('agent');
    const other = uniqueStream('project');
    const limited = await authHeaders('agent:quinn-07', ['append', 'read'], {
      streams: ['agent:'],
    });
    expect((await post(mine, wire11(mine), limited)).status).toBe(201);
    const res = await post(other, wire11(other), limited);
    const problem = await expectProblem(res, 403, 'forbidden');
    expect(problem.detail).toContain(
      `stream "${other}" is outside the token's stream prefixes [agent:]`,
    );
    await expectNothingStored(other);
    const read = await SELF.fetch(`${base}/v1/streams/${other}/wires`, { headers: limited });
    await expectProblem(read, 403, 'forbidden');
  });

  it('refuses task.available from an agent and accepts it from a coordinator', async () => {
    const taskId = uniqueStream('task').split(':')[1] ?? 't1';
    const stream = `task:${taskId}:attempt:1`;
    const available = (sender: string) =>
      wire11(stream, {
        sender,
        type: 'task.available',
        payload: { task_id: taskId, role: 'builder' },
      });
    const agent = await authHeaders('agent:quinn-07', ['append', 'read', 'claim']);
    const problem = await expectProblem(
      await post(stream, available('agent:quinn-07'), agent),
      403,
      'forbidden',
    );
    expect(problem.detail).toContain(
      'only coordinator or admin identities may post "task.available"',
    );
    await expectNothingStored(stream);
    const ok = await post(stream, available('coordinator:test'), await coordinatorHeaders());
    expect(ok.status, await ok.clone().text()).toBe(201);
  });

  it('refuses a claim from a token without the claim scope', async () => {
    const taskId = uniqueStream('task').split(':')[1] ?? 't1';
    const stream = `task:${taskId}:attempt:1`;
    const claimWire = wire11(stream, {
      type: 'task.claimed',
      payload: {
        task_id: taskId,
        agent: 'quinn-07',
        role: 'builder',
        lease_expires_at: new Date(Date.now() + 600_000).toISOString(),
      },
    });
    const appender = await authHeaders('agent:quinn-07', ['append', 'read']);
    const problem = await expectProblem(await post(stream, claimWire, appender), 403, 'forbidden');
    expect(problem.detail).toContain('needs the "claim" scope');
    await expectNothingStored(stream);
  });

  it.each([
    ['gate.passed', { gate_id: 'g1' }],
    ['project.created', { name: 'x' }],
    [
      'dependency.created',
      { downstream_task_id: 'a', upstream_task_id: 'b', release_on: { type: 'task.complete' } },
    ],
  ])('refuses orchestration Wire %s from an agent', async (type, payload) => {
    const s = uniqueStream();
    const agent = await authHeaders('agent:quinn-07', ['append', 'read', 'claim']);
    const res = await post(s, wire11(s, { type, payload }), agent);
    await expectProblem(res, 403, 'forbidden');
    await expectNothingStored(s);
  });
});

describe('routes added by other features', () => {
  it('keeps /v1/admin/* for admin tokens', async () => {
    const agent = await authHeaders('agent:quinn-07', ['append', 'read', 'claim']);
    const res = await SELF.fetch(`${base}/v1/admin/rebuild`, { method: 'POST', headers: agent });
    await expectProblem(res, 403, 'forbidden');
  });

  it('applies stream prefixes to the coordination view', async () => {
    const limited = await authHeaders('agent:quinn-07', ['read'], { streams: ['agent:'] });
    const res = await SELF.fetch(`${base}/v1/coordination/project:x`, { headers: limited });
    await expectProblem(res, 403, 'forbidden');
  });

  it('applies stream prefixes to role feeds, as to the role:<role> stream itself', async () => {
    const limited = await authHeaders('agent:quinn-07', ['read'], { streams: ['agent:'] });
    const feed = await SELF.fetch(`${base}/v1/roles/developer/wires`, { headers: limited });
    const problem = await expectProblem(feed, 403, 'forbidden');
    expect(problem.detail).toContain('stream "role:developer" is outside');
    const ws = await SELF.fetch(`${base}/v1/roles/developer/ws`, {
      headers: { ...limited, Upgrade: 'websocket' },
    });
    await expectProblem(ws, 403, 'forbidden');
    const roles = await authHeaders('agent:quinn-07', ['read'], { streams: ['role:'] });
    expect((await SELF.fetch(`${base}/v1/roles/developer/wires`, { headers: roles })).status).toBe(
      200,
    );
  });

  it("hides another stream's proof and topics from a prefix-limited token, and refuses topic-wide listings", async () => {
    const s = uniqueStream('project');
    const sent = wire11(s);
    expect((await post(s, sent)).status).toBe(201);
    const [anchored] = await untilAnchored(s, [`project.${s.slice('project:'.length)}`]);
    expect(anchored?.anchor.status).toBe('anchored');
    const topicId = anchored?.anchor.hcs_topic_id ?? '';
    const everyStream = await authHeaders('agent:quinn-07', ['read']);
    const limited = await authHeaders('agent:quinn-07', ['read'], { streams: ['agent:'] });
    const proof = `${base}/v1/wires/${sent.wire_id}/proof`;
    expect((await SELF.fetch(proof, { headers: everyStream })).status).toBe(200);
    const hidden = await expectProblem(
      await SELF.fetch(proof, { headers: limited }),
      404,
      'not-found',
    );
    expect(hidden.detail).toBe(`wire "${sent.wire_id}" is unknown or not anchored yet`);
    // The topic list shows a limited token only the topics of streams it may read.
    const names = async (headers: Record<string, string>) =>
      (
        (await (await SELF.fetch(`${base}/v1/topics`, { headers })).json()) as {
          topics: { name: string }[];
        }
      ).topics.map((t) => t.name);
    const all = await names(everyStream);
    const projectTopic = all.find((n) => n.startsWith('project.')) ?? '';
    expect(projectTopic).not.toBe('');
    expect((await names(limited)).every((n) => n.startsWith('stream.agent:'))).toBe(true);
    const project = `project:${projectTopic.slice('project.'.length)}`;
    const own = await authHeaders('agent:quinn-07', ['read'], { streams: [project] });
    const seen = await names(own);
    expect(seen).toContain(projectTopic);
    expect(seen.every((n) => n.startsWith('project.') || n.startsWith('stream.project:'))).toBe(
      true,
    );
    expect(all.some((n) => !seen.includes(n))).toBe(true);
    for (const path of [`/v1/topics/${topicId}/anchors`, '/v1/alerts']) {
      expect((await SELF.fetch(`${base}${path}`, { headers: everyStream })).status, path).toBe(200);
      const refused = await expectProblem(
        await SELF.fetch(`${base}${path}`, { headers: limited }),
        403,
        'forbidden',
      );
      expect(refused.detail).toContain(
        'spans every stream; a token limited to the stream prefixes [agent:]',
      );
    }
  });
});

describe('percent-encoded paths', () => {
  // The router decodes the path before matching; authorization must judge the same path.
  it('refuses /v1/%74okens to a token without the admin scope, as /v1/tokens', async () => {
    const appender = await authHeaders('agent:quinn-07', ['append', 'claim']);
    const res = await SELF.fetch(`${base}/v1/%74okens`, {
      method: 'POST',
      headers: { ...appender, 'Content-Type': 'application/json' },
      body: JSON.stringify({ sub: 'human:mallory', scopes: ['admin'] }),
    });
    const problem = await expectProblem(res, 403, 'forbidden');
    expect(problem.detail).toContain('do not include "admin"');
  });

  it('keeps stream prefixes on /v1/%73treams/… and /v1/%63oordination/…', async () => {
    const other = uniqueStream('project');
    const limited = await authHeaders('agent:quinn-07', ['append', 'read'], {
      streams: ['agent:'],
    });
    const read = await SELF.fetch(`${base}/v1/%73treams/${other}/wires`, { headers: limited });
    await expectProblem(read, 403, 'forbidden');
    const write = await SELF.fetch(`${base}/v1/%73treams/${other}/wires`, {
      method: 'POST',
      headers: { ...limited, 'Content-Type': 'application/json' },
      body: JSON.stringify(wire11(other)),
    });
    await expectProblem(write, 403, 'forbidden');
    await expectNothingStored(other);
    const view = await SELF.fetch(`${base}/v1/%63oordination/${other}`, { headers: limited });
    await expectProblem(view, 403, 'forbidden');
  });

  it('refuses /v1/%74ickets to a token without the read scope', async () => {
    const appender = await authHeaders('agent:quinn-07', ['append']);
    const res = await SELF.fetch(`${base}/v1/%74ickets`, { method: 'POST', headers: appender });
    await expectProblem(res, 403, 'forbidden');
  });
});

describe('an admin token limited to stream prefixes', () => {
  it('mints only tokens within its prefixes, and may not rebuild every read model', async () => {
    const admin = await authHeaders('human:ops', ['admin'], { streams: ['project:a'] });
    const mint = (streams?: string[]) =>
      SELF.fetch(`${base}/v1/tokens`, {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ sub: 'agent:x', scopes: ['read'], ...(streams ? { streams } : {}) }),
      });
    const unlimited = await expectProblem(await mint(), 403, 'forbidden');
    expect(unlimited.detail).toContain('may only mint tokens limited to prefixes within them');
    const wider = await expectProblem(await mint(['project:', 'project:ab']), 403, 'forbidden');
    expect(wider.detail).toContain('[project:] are not');
    expect((await mint(['project:ab'])).status).toBe(201);
    const rebuild = await SELF.fetch(`${base}/v1/admin/rebuild`, {
      method: 'POST',
      headers: admin,
    });
    await expectProblem(rebuild, 403, 'forbidden');
    const projection = await SELF.fetch(`${base}/v1/admin/projection`, { headers: admin });
    await expectProblem(projection, 403, 'forbidden');
  });
});

describe('POST /v1/tokens', () => {
  const issue = (headers: Record<string, string>, body: unknown) =>
    SELF.fetch(`${base}/v1/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('issues a working token to the admin token holder', async () => {
    const res = await issue(bearer(env.ADMIN_TOKEN ?? ''), {
      sub: 'agent:newcomer',
      scopes: ['append', 'read'],
      expires_in: 600,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { token, expires_at } = (await res.json()) as { token: string; expires_at: string };
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(600_000);
    const s = uniqueStream();
    expect((await post(s, wire11(s, { sender: 'agent:newcomer' }), bearer(token))).status).toBe(
      201,
    );
    expect(await readAll(s)).toHaveLength(1);
  });

  it('refuses a wrong admin token and a non-admin token', async () => {
    const body = { sub: 'agent:x', scopes: ['admin'] };
    await expectProblem(await issue(bearer('not-the-admin-token'), body), 401, 'unauthenticated');
    await expectProblem(
      await issue(await authHeaders('agent:x', ['append', 'read']), body),
      403,
      'forbidden',
    );
  });

  it('bounds the expiry and validates the body field by field', async () => {
    const res = await issue(bearer(env.ADMIN_TOKEN ?? ''), {
      sub: 'system',
      scopes: ['root'],
      expires_in: 10 * 365 * 24 * 3600,
    });
    const problem = await expectProblem(res, 422, 'invalid-body');
    expect(problem.errors?.map((e) => e.path).sort()).toEqual(['expires_in', 'scopes.0', 'sub']);
  });
});
