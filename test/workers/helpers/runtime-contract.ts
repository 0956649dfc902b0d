import { expect } from 'vitest';
import { authHeaders } from './auth';
import { call } from './contract';
import { uid } from './coordination';
import { envelope, eventually, sha256Hex } from './runtime';

/**
 * Runtime v1's routes for the contract test (api-contract.test.ts): each
 * documented operation once with a success and once with a documented error.
 */
export async function exerciseRuntime(): Promise<void> {
  const auth = await authHeaders('agent:contract-runtime');
  const json = (body: unknown): RequestInit => ({
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const get = { headers: auth };
  const ch = uid('cch');
  const policy = {
    rules: [{ id: 'r', when: { textIncludes: ['dig'] }, route: { action: 'spawn_branch' } }],
    default: { action: 'respond' },
  };
  const C = '/v1/channels';
  expect(
    (
      await call(
        'post',
        C,
        C,
        json(envelope('channel.opened', ch, { policy, contextBudget: 1000 })),
      )
    ).status,
  ).toBe(201);
  expect(
    (await call('post', C, C, json(envelope('channel.opened', ch, { contextBudget: 1 })))).status,
  ).toBe(422);

  const M = `${C}/{channel_id}/messages`;
  const said = envelope('channel.message.received', ch, { text: 'dig into it' });
  expect((await call('post', M, `${C}/${ch}/messages`, json(said))).status).toBe(201);
  expect((await call('post', M, `${C}/${ch}/messages`, json(said))).status).toBe(200);
  expect((await call('post', M, `${C}/${ch}/messages`, { headers: auth, body: '{}' })).status).toBe(
    415,
  );

  const W = '/v1/workers';
  const wk = uid('cwk');
  const spec = { goal: 'g', toolset: ['t'], mode: 'interactive' };
  expect(
    (await call('post', W, W, json(envelope('worker.spawned', ch, spec, { workerId: wk })))).status,
  ).toBe(201);
  expect(
    (await call('post', W, W, json(envelope('worker.spawned', ch, spec, { workerId: wk })))).status,
  ).toBe(409);
  const WE = `${W}/{worker_id}/events`;
  const progress = async (status: string) =>
    (await call('post', WE, `${W}/${wk}/events`, json(envelope('worker.progress', ch, { status }))))
      .status;
  expect(await progress('waiting')).toBe(201);
  expect(await progress('nope')).toBe(422);
  const WS = `${W}/{worker_id}/state`;
  expect((await call('get', WS, `${W}/${wk}/state`, get)).status).toBe(200);
  expect((await call('get', WS, `${W}/none-such/state`, get)).status).toBe(404);

  const R = `${C}/{channel_id}/route/{worker_id}`;
  await eventually(
    async () => (await call('get', `${C}/{channel_id}/state`, `${C}/${ch}/state`, get)).body,
  );
  const routed = await call(
    'post',
    R,
    `${C}/${ch}/route/${wk}`,
    json(envelope('channel.message.received', ch, { text: 'go' })),
  );
  expect(routed.status).toBe(201);
  expect(
    (
      await call(
        'post',
        R,
        `${C}/${ch}/route/none-such`,
        json(envelope('channel.message.received', ch, { text: 'go' })),
      )
    ).status,
  ).toBe(404);

  const S = `${C}/{channel_id}/summaries`;
  const summary = (toSeq: number) =>
    envelope('compactor.summary.applied', ch, { fromSeq: 2, toSeq, summary: 's' });
  expect((await call('post', S, `${C}/${ch}/summaries`, json(summary(3)))).status).toBe(201);
  expect((await call('post', S, `${C}/${ch}/summaries`, json(summary(999)))).status).toBe(422);

  const CS = `${C}/{channel_id}/state`;
  expect((await call('get', CS, `${C}/${ch}/state`, get)).status).toBe(200);
  expect((await call('get', CS, `${C}/none-such/state`, get)).status).toBe(404);
  const CE = `${C}/{channel_id}/events`;
  const evs = await call('get', CE, `${C}/${ch}/events`, get);
  expect(evs.status).toBe(200);
  expect((await call('get', CE, `${C}/${ch}/events?limit=0`, get)).status).toBe(400);

  const decided = (
    evs.body as { events: { envelope: { payload: { branchId?: string } } }[] }
  ).events.find((e) => e.envelope.payload.branchId);
  const br = decided?.envelope.payload.branchId as string;
  const B = '/v1/branches';
  await eventually(
    async () =>
      (await call('get', `${B}/{branch_id}/state`, `${B}/${br}/state`, get)).status === 200,
  );
  expect((await call('get', `${B}/{branch_id}/state`, `${B}/none-such/state`, get)).status).toBe(
    404,
  );
  const BM = `${B}/{branch_id}/memory`;
  const memory = envelope('memory.saved', ch, { text: 'remember the contract' }, { branchId: br });
  expect((await call('post', BM, `${B}/${br}/memory`, json(memory))).status).toBe(201);
  expect(
    (
      await call(
        'post',
        BM,
        `${B}/${br}/memory`,
        json({ ...memory, messageId: uid('m'), payload: {} }),
      )
    ).status,
  ).toBe(422);
  expect((await call('get', BM, `${B}/${br}/memory?q=contract`, get)).status).toBe(200);
  expect((await call('get', BM, `${B}/${br}/memory`, get)).status).toBe(400);
  const BC = `${B}/{branch_id}/conclusion`;
  const conclusion = {
    conclusion: 'c',
    artifactRefs: [],
    memoryRefs: [],
    tokenUsage: { input: 1, output: 1 },
  };
  expect(
    (
      await call(
        'post',
        BC,
        `${B}/${br}/conclusion`,
        json(envelope('branch.conclusion', ch, { ...conclusion, extra: 1 })),
      )
    ).status,
  ).toBe(422);
  expect(
    (
      await call(
        'post',
        BC,
        `${B}/${br}/conclusion`,
        json(envelope('branch.conclusion', ch, conclusion)),
      )
    ).status,
  ).toBe(201);

  const A = '/v1/artifacts';
  const bytes = '{"contract":true}';
  const sha = await sha256Hex(bytes);
  const upload = (): RequestInit => ({
    headers: { ...auth, 'Content-Type': 'application/octet-stream' },
    body: bytes,
  });
  expect((await call('post', A, `${A}?sha256=${sha}&channelId=${ch}`, upload())).status).toBe(201);
  expect(
    (await call('post', A, `${A}?sha256=${'0'.repeat(64)}&channelId=${ch}`, upload())).status,
  ).toBe(422);
  const AC = `${A}/{artifact_id}/content`;
  expect((await call('get', AC, `${A}/sha256-${sha}/content`, get)).status).toBe(200);
  expect((await call('get', AC, `${A}/sha256-${'1'.repeat(64)}/content`, get)).status).toBe(404);

  const BU = '/v1/bulletins';
  expect((await call('get', BU, BU, get)).status).toBe(200);
  expect((await call('get', BU, `${BU}?limit=0`, get)).status).toBe(400);
  const SC = '/v1/schema/runtime-envelope-v1.json';
  expect((await call('get', SC, SC, get)).status).toBe(200);
  expect((await call('get', SC, SC)).status).toBe(401);
}
