import { env } from 'cloudflare:test';
import { ulid } from 'ulidx';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';
import { draftOf } from '../../src/protocol';
import { directoryStub } from '../../src/topic/topic-directory';
import { authHeaders, coordinatorHeaders } from './helpers/auth';
import { call, DOC, documentedOperations, frameViolations, seen } from './helpers/contract';
import { uid } from './helpers/coordination';
import { exerciseGsdRoutes } from './helpers/gsd-contract';
import { exerciseHeimdall, exerciseWorkspace } from './helpers/heimdall-contract';
import { exerciseLogMode } from './helpers/log-contract';
import { untilQuiet } from './helpers/projection-live';
import { exerciseRuntime } from './helpers/runtime-contract';

/**
 * The contract test: every route the app serves is in /v1/openapi.json, and
 * every documented operation, called for real through the Worker, answers
 * with a documented status, content type and body (a success, and an error
 * where the operation documents one).
 */

const STREAMS = '/v1/streams/{stream_id}';
const WIRES = `${STREAMS}/wires`;
const project = `project:${uid('contract')}`;
const role = uid('role');
const task = uid('T');
const taskStream = `task:${task}:attempt:1`;
const agent = uid('agent');
let appended = '';

function jsonInit(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

function wire(streamId: string, sender: string, type: string, payload: Record<string, unknown>) {
  const ts = new Date().toISOString();
  return draftOf({ wire_id: uid('w'), stream_id: streamId, type, sender, ts, payload });
}

const enc = encodeURIComponent;

/** Opens a WebSocket route, checks every frame until `caught-up`, then closes. */
async function follow(template: string, url: string, headers: Record<string, string>) {
  const { res } = await call('get', template, url, {
    headers: { Upgrade: 'websocket', ...headers },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket;
  if (!ws) throw new Error('no WebSocket on the 101');
  const frames: { kind: string }[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no caught-up; frames: ${JSON.stringify(frames)}`)),
      5000,
    );
    ws.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as { kind: string };
      frames.push(frame);
      const wrong = frameViolations(frame);
      if (wrong.length > 0) reject(new Error(`frame breaks ServerFrame: ${wrong.join('; ')}`));
      if (frame.kind === 'caught-up') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  ws.accept();
  await done;
  ws.close(1000, 'done');
  return frames;
}

describe('the API against its OpenAPI document', () => {
  it('appends, replays and refuses Wires as documented', async () => {
    const sender = 'agent:contract';
    const auth = await authHeaders(sender);
    const url = `/v1/streams/${enc(project)}/wires`;
    const first = wire(project, sender, 'review.concern', {
      concern: 'x',
      nested: { a: [1, null] },
    });
    appended = first.wire_id;
    expect((await call('post', WIRES, url, jsonInit(first, auth))).status).toBe(201);
    const replay = await call('post', WIRES, url, jsonInit(first, auth));
    expect(replay.status).toBe(200);
    expect(replay.res.headers.get('Idempotent-Replay')).toBe('true');
    const bad = wire(project, sender, 'Not A Type', {});
    expect((await call('post', WIRES, url, jsonInit(bad, auth))).status).toBe(422);
    const stale = wire(project, sender, 'review.concern', { concern: 'y' });
    expect(
      (await call('post', WIRES, url, jsonInit(stale, { ...auth, 'If-Match': '"0"' }))).status,
    ).toBe(412);
    expect((await call('post', WIRES, url, jsonInit('{"wire":', auth))).status).toBe(400);
    const text = { headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'hello' };
    expect((await call('post', WIRES, url, text)).status).toBe(415);
    expect((await call('post', WIRES, url, jsonInit(first))).status).toBe(401);
    const other = await authHeaders('agent:someone-else');
    expect((await call('post', WIRES, url, jsonInit(stale, other))).status).toBe(403);
  });

  it('pages, describes and follows a stream as documented', async () => {
    const auth = await authHeaders();
    const page = await call('get', WIRES, `/v1/streams/${enc(project)}/wires?after_seq=0`, {
      headers: auth,
    });
    expect(page.body).toMatchObject({ last_seq: 1, next_after_seq: null });
    expect(
      (await call('get', WIRES, `/v1/streams/${enc(project)}/wires?limit=0`, { headers: auth }))
        .status,
    ).toBe(400);
    expect((await call('get', WIRES, '/v1/streams/no-kind/wires', { headers: auth })).status).toBe(
      400,
    );
    expect(
      (await call('get', STREAMS, `/v1/streams/${enc(project)}`, { headers: auth })).status,
    ).toBe(200);
    const unknown = `/v1/streams/${enc(`project:${uid('none')}`)}`;
    expect((await call('get', STREAMS, unknown, { headers: auth })).status).toBe(404);
    const ws = `${STREAMS}/ws`;
    const frames = await follow(ws, `/v1/streams/${enc(project)}/ws?after_seq=0`, auth);
    expect(frames.map((f) => f.kind)).toEqual(['hello', 'wires', 'caught-up']);
    expect(
      (await call('get', ws, `/v1/streams/${enc(project)}/ws`, { headers: auth })).status,
    ).toBe(400);
    const past = `/v1/streams/${enc(project)}/ws?after_seq=99`;
    expect(
      (await call('get', ws, past, { headers: { ...auth, Upgrade: 'websocket' } })).status,
    ).toBe(400);
  });

  it('serves the role feed and coordination state as documented', async () => {
    const planner = await coordinatorHeaders('coordinator:contract');
    const offer = wire(taskStream, 'coordinator:contract', 'task.available', {
      task_id: task,
      role,
      attempt: 1,
    });
    const taskUrl = `/v1/streams/${enc(taskStream)}/wires`;
    expect((await call('post', WIRES, taskUrl, jsonInit(offer, planner))).status).toBe(201);
    const auth = await authHeaders();
    const feed = '/v1/roles/{role}/wires';
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 100 && !(body.last_seq as number); i++) {
      body = (await call('get', feed, `/v1/roles/${role}/wires?after_seq=0`, { headers: auth }))
        .body as Record<string, unknown>;
      if (!(body.last_seq as number)) await new Promise((r) => setTimeout(r, 50));
    }
    expect(body).toMatchObject({ last_seq: 1, next_after_seq: null, next_after: null });
    const older = await call('get', feed, `/v1/roles/${role}/wires?after=0&limit=1`, {
      headers: auth,
    });
    expect(older.body).toMatchObject({ last_seq: 1 });
    expect(
      (await call('get', feed, `/v1/roles/${role}/wires?limit=0`, { headers: auth })).status,
    ).toBe(400);
    const roleWs = '/v1/roles/{role}/ws';
    await follow(roleWs, `/v1/roles/${role}/ws?after_seq=0`, auth);
    expect((await call('get', roleWs, `/v1/roles/${role}/ws`, { headers: auth })).status).toBe(400);

    const claimer = await authHeaders(`agent:${agent}`);
    const claim = wire(taskStream, `agent:${agent}`, 'task.claimed', {
      task_id: task,
      agent,
      role,
      lease_expires_at: new Date(Date.now() + 600_000).toISOString(),
    });
    const won = await call('post', WIRES, taskUrl, jsonInit(claim, claimer));
    expect(won.body).toMatchObject({ fencing_token: expect.any(String) });
    const rival = await authHeaders('agent:rival');
    const lost = wire(taskStream, 'agent:rival', 'task.claimed', {
      ...claim.payload,
      agent: 'rival',
    });
    expect((await call('post', WIRES, taskUrl, jsonInit(lost, rival))).status).toBe(409);
    const agentStream = `agent:${agent}`;
    const started = wire(agentStream, agentStream, 'agent.started', { role });
    const agentUrl = `/v1/streams/${enc(agentStream)}/wires`;
    expect((await call('post', WIRES, agentUrl, jsonInit(started, claimer))).status).toBe(201);

    const state = '/v1/coordination/{stream_id}';
    expect(
      (await call('get', state, `/v1/coordination/${enc(taskStream)}`, { headers: auth })).status,
    ).toBe(200);
    expect((await call('get', state, '/v1/coordination/no-kind', { headers: auth })).status).toBe(
      400,
    );
  });

  it('issues tokens and tickets as documented', async () => {
    const admin = { Authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const token = { sub: 'agent:minted', scopes: ['read'], expires_in: 600 };
    expect((await call('post', '/v1/tokens', '/v1/tokens', jsonInit(token, admin))).status).toBe(
      201,
    );
    const wrong = { sub: 'agent:minted', scopes: ['root'] };
    expect((await call('post', '/v1/tokens', '/v1/tokens', jsonInit(wrong, admin))).status).toBe(
      422,
    );
    const reader = await authHeaders('human:reader', ['read']);
    expect((await call('post', '/v1/tickets', '/v1/tickets', { headers: reader })).status).toBe(
      201,
    );
    expect((await call('post', '/v1/tickets', '/v1/tickets')).status).toBe(401);
  });

  it('answers the read models as documented, once projected', async () => {
    await untilQuiet();
    const auth = await authHeaders('human:reader', ['read']);
    const get = (template: string, url: string) => call('get', template, url, { headers: auth });
    expect((await get('/v1/tasks', '/v1/tasks')).body).toMatchObject({
      tasks: [expect.anything()],
    });
    expect((await get('/v1/tasks', '/v1/tasks?staus=claimed')).status).toBe(400);
    expect((await get('/v1/tasks/{task_id}', `/v1/tasks/${task}`)).status).toBe(200);
    expect((await get('/v1/tasks/{task_id}', `/v1/tasks/${uid('none')}`)).status).toBe(404);
    const listed = await get('/v1/agents', '/v1/agents');
    expect(listed.body).toMatchObject({
      agents: [expect.anything()],
    });
    expect((await get('/v1/agents', '/v1/agents?stale=maybe')).status).toBe(400);

    expect((await get('/v1/agents/{agent_id}', `/v1/agents/${agent}`)).status).toBe(200);
    expect((await get('/v1/agents/{agent_id}', `/v1/agents/${uid('none')}`)).status).toBe(404);
    expect((await get('/v1/streams', '/v1/streams')).status).toBe(200);
    expect((await get('/v1/streams', '/v1/streams?bogus=1')).status).toBe(400);
    expect((await get('/v1/wires', `/v1/wires?stream_id=${enc(project)}`)).status).toBe(200);
    expect((await get('/v1/wires', '/v1/wires?limit=0')).status).toBe(400);
    expect((await get('/v1/wires/{wire_id}', `/v1/wires/${appended}`)).status).toBe(200);
    expect((await get('/v1/wires/{wire_id}', `/v1/wires/${uid('none')}`)).status).toBe(404);
    // A task offered in the project: its progress counts it.
    const plannedTask = uid('T');
    const planned = wire(
      `task:${plannedTask}:attempt:1`,
      'coordinator:contract',
      'task.available',
      {
        task_id: plannedTask,
        role,
        attempt: 1,
      },
    );
    const inProject = { ...planned, correlation_id: project };
    const plannedUrl = `/v1/streams/${enc(inProject.stream_id)}/wires`;
    const planner = await coordinatorHeaders('coordinator:contract');
    const posted = await call('post', WIRES, plannedUrl, jsonInit(inProject, planner));
    expect(posted.status).toBe(201);
    const progress = '/v1/projects/{project_id}/progress';
    expect(
      (await get(progress, `/v1/projects/${enc(project)}/progress?wait_for=${inProject.wire_id}`))
        .body,
    ).toMatchObject({
      attempts: 1,
      statuses: { available: 1 },
    });
    expect((await get(progress, `/v1/projects/${uid('none')}/progress`)).status).toBe(404);
    expect((await get(progress, `/v1/projects/${enc(project)}/progress?wait_ms=-1`)).status).toBe(
      400,
    );
  });

  it('shows HCS anchoring as documented', async () => {
    const auth = await authHeaders('human:ops');
    const get = (template: string, url: string, headers = auth) =>
      call('get', template, url, { headers });
    const topics = (await get('/v1/topics', '/v1/topics')).body as {
      topics: { hcs_topic_id: string | null }[];
    };
    // A token limited to stream prefixes sees only the topics of streams it may read.
    const limited = await authHeaders('human:limited', ['read'], { streams: ['project:'] });
    const seen = await get('/v1/topics', '/v1/topics', limited);
    expect(seen.status).toBe(200);
    const names = (seen.body as { topics: { name: string }[] }).topics.map((t) => t.name);
    expect(names.every((n) => n.startsWith('project.'))).toBe(true);
    const noRead = await authHeaders('human:no-read', ['append']);
    expect((await get('/v1/topics', '/v1/topics', noRead)).status).toBe(403);
    const topicId = topics.topics.find((t) => t.hcs_topic_id)?.hcs_topic_id;
    const anchors = '/v1/topics/{hcs_topic_id}/anchors';
    expect((await get(anchors, `/v1/topics/${topicId}/anchors?limit=5`)).status).toBe(200);
    expect((await get(anchors, '/v1/topics/0.0.999999/anchors')).status).toBe(404);
    const proof = '/v1/wires/{wire_id}/proof';
    expect((await get(proof, `/v1/wires/${appended}/proof`)).status).toBe(200);
    expect((await get(proof, `/v1/wires/${uid('none')}/proof`)).status).toBe(404);
    expect((await get('/v1/alerts', '/v1/alerts')).status).toBe(200);
    expect((await get('/v1/alerts', '/v1/alerts?limit=0')).status).toBe(400);
    const topic = `${STREAMS}/topic`;
    const url = `/v1/streams/${enc(project)}/topic`;
    expect((await call('put', topic, url, jsonInit({ topic: 'shared' }, auth))).status).toBe(200);
    expect((await call('put', topic, url, jsonInit({ topic: 'mine' }, auth))).status).toBe(422);
  });

  it("serves log mode's proofs as documented", exerciseLogMode);

  it('runs and reports read-model rebuilds as documented', async () => {
    const admin = await authHeaders('human:ops', ['admin']);
    const reader = await authHeaders('human:reader', ['read']);
    const rebuild = '/v1/admin/rebuild';
    expect((await call('get', rebuild, rebuild, { headers: admin })).status).toBe(404);
    const projection = '/v1/admin/projection';
    expect((await call('get', projection, projection, { headers: admin })).status).toBe(200);
    expect((await call('get', projection, projection, { headers: reader })).status).toBe(403);
    const bad = jsonInit({ models: ['nope'] }, admin);
    expect((await call('post', rebuild, rebuild, bad)).status).toBe(400);
    const run = await call('post', rebuild, rebuild, { headers: admin });
    expect(run.status).toBe(200);
    expect((run.body as { phase: string }[]).at(-1)?.phase).toBe('done');
    expect((await call('get', rebuild, rebuild, { headers: admin })).status).toBe(200);
  });

  it('serves the GSD agent events routes as documented', exerciseGsdRoutes);

  it('serves its public documents as documented', async () => {
    for (const path of ['/v1/schema/wire.json', '/v1/openapi.json']) {
      expect((await call('get', path, path)).status).toBe(200);
    }
    expect((await call('get', '/problems/{code}', '/problems/stale-stream')).status).toBe(200);
    expect((await call('get', '/problems/{code}', '/problems/no-such-code')).status).toBe(404);
  });

  it('serves the HAID registry as documented', async () => {
    const auth = await authHeaders('agent:contract');
    expect((await call('get', '/v1/haids', '/v1/haids', { headers: auth })).status).toBe(200);
    expect((await call('get', '/v1/haids', '/v1/haids')).status).toBe(401);
  });

  it('serves the private payloads admin routes as documented', async () => {
    const admin = await authHeaders('human:ops', ['admin']);
    const reader = await authHeaders('human:reader', ['read']);
    const keys = '/v1/admin/private-keys';
    expect((await call('get', keys, keys, { headers: admin })).status).toBe(200);
    expect((await call('get', keys, keys, { headers: reader })).status).toBe(403);
    const rewrap = '/v1/admin/private-keys/rewrap';
    expect((await call('post', rewrap, rewrap, { headers: admin })).status).toBe(200);
    expect((await call('post', rewrap, rewrap, { headers: reader })).status).toBe(403);
    // The vault project's data key, as its first sealed Wire would make it.
    await directoryStub(env).dataKey('vault');
    const exported = '/v1/admin/private-keys/export';
    const ask = (project: string, headers: Record<string, string>) =>
      call('post', exported, exported, jsonInit({ project }, headers));
    expect((await ask('vault', admin)).status).toBe(200);
    expect((await ask('vault', reader)).status).toBe(403);
    expect((await ask('not-private', admin)).status).toBe(422);
  });

  it("serves seed 001's workspace routes as documented", async () => {
    await exerciseHeimdall(uid('contract-ws').toLowerCase());
    await exerciseWorkspace(uid('contract-wk').toLowerCase());
  });

  it('serves run documents (seed 002) as documented', async () => {
    const run = ulid();
    const writer = await authHeaders('agent:contract-writer');
    const worker = await authHeaders('agent:contract-worker');
    const created = {
      run_id: run,
      sections: [{ id: 'findings' }],
      writer: 'agent:contract-writer',
      workers: ['agent:contract-worker'],
    };
    expect((await call('post', '/v1/runs', '/v1/runs', jsonInit(created, writer))).status).toBe(
      201,
    );
    expect(
      (await call('post', '/v1/runs', '/v1/runs', jsonInit({ run_id: 'x' }, writer))).status,
    ).toBe(422);
    const messages = '/v1/runs/{run_id}/messages';
    const url = `/v1/runs/${run}/messages`;
    const canon = {
      type: 'WriterApplyPatch',
      message_id: uid('m'),
      run_id: run,
      section: 'findings',
      ops: [{ op: 'replace', path: '/body', value: 'canon' }],
      proposal: false,
    };
    expect((await call('post', messages, url, jsonInit(canon, writer))).body).toMatchObject({
      type: 'WriterAck',
      revision: 1,
    });
    const rejected = await call(
      'post',
      messages,
      url,
      jsonInit({ ...canon, message_id: uid('m') }, worker),
    );
    expect(rejected.body).toMatchObject({ type: 'WriterReject' });
    const stranger = await authHeaders('agent:contract-stranger');
    expect(
      (await call('post', messages, url, jsonInit({ ...canon, message_id: uid('m') }, stranger)))
        .status,
    ).toBe(403);
    const reads: [string, string, string][] = [
      [
        '/v1/runs/{run_id}/document',
        `/v1/runs/${run}/document?revision=1`,
        `/v1/runs/${run}/document?revision=9`,
      ],
      ['/v1/runs/{run_id}/revisions', `/v1/runs/${run}/revisions`, `/v1/runs/${ulid()}/revisions`],
      [
        '/v1/runs/{run_id}/diff',
        `/v1/runs/${run}/diff?from=0&to=1`,
        `/v1/runs/${run}/diff?from=0&to=7`,
      ],
      ['/v1/runs/{run_id}/mailbox', `/v1/runs/${run}/mailbox`, `/v1/runs/${run}/mailbox?limit=0`],
      ['/v1/runs/{run_id}/trace', `/v1/runs/${run}/trace`, `/v1/runs/${run}/trace?limit=0`],
      ['/v1/runs/{run_id}/wires', `/v1/runs/${run}/wires`, `/v1/runs/${run}/wires?limit=0`],
    ];
    for (const [template, good, bad] of reads) {
      expect((await call('get', template, good, { headers: writer })).status).toBe(200);
      expect((await call('get', template, bad, { headers: writer })).status).toBeGreaterThanOrEqual(
        400,
      );
    }
    for (const plane of ['mailbox', 'trace', 'wires']) {
      const template = `/v1/runs/{run_id}/${plane}/ws`;
      await follow(template, `/v1/runs/${run}/${plane}/ws?after_seq=0`, writer);
      expect(
        (await call('get', template, `/v1/runs/${run}/${plane}/ws`, { headers: writer })).status,
      ).toBe(400);
    }
  });

  it('serves Runtime v1 (seed 003) as documented', exerciseRuntime);

  it('exercised every documented operation: a success and, where documented, an error', () => {
    const missing: string[] = [];
    for (const { method, path, statuses } of documentedOperations()) {
      const key = `${method.toUpperCase()} ${path}`;
      const got = [...(seen.get(key) ?? [])];
      if (!got.some((s) => s < 400)) missing.push(`${key}: no success`);
      if (statuses.some((s) => s.startsWith('4')) && !got.some((s) => s >= 400 && s < 500)) {
        missing.push(`${key}: no documented error`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents every route the app serves, and serves every documented route', () => {
    const served = new Set(
      createApp()
        .routes.filter((r) => r.method !== 'ALL' && /^\/(v1|problems)\//.test(r.path))
        // `:tile_path{.+}`: a parameter over several segments, documented as `{tile_path}`.
        .map(
          (r) =>
            `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, '{$1}')}`,
        ),
    );
    // Literals served through the route of the parameter beside them (ARCHITECTURE.md,
    // "One parameter per position"); the calls above reach them by their own paths.
    const sharedRoute: Record<string, string> = {
      'post /v1/workspaces/{ws}/claims/release': 'post /v1/workspaces/{ws}/claims/{claim_id}',
      'get /v1/workspaces/{ws}/capsules/hydrate': 'get /v1/workspaces/{ws}/capsules/{id}',
    };
    const documented = new Set(
      documentedOperations().map((o) => {
        const route = `${o.method} ${o.path}`;
        return sharedRoute[route] ?? route;
      }),
    );
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
    expect(DOC.openapi).toMatch(/^3\.1\./);
  });
});
