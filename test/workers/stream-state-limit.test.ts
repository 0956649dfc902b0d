import { expect, it } from 'vitest';
import { MAX_STATE_BYTES } from '../../src/kernel/kind-runner';
import { api, wsId } from './helpers/heimdall';

/**
 * A stream's decision state is one SQLite row (and one D1 row in a read
 * model), which holds at most 2 MB. A Heimdall workspace keeps one entry per
 * blackboard key: the write that would take its state past the kernel's
 * limit is refused with a 4xx before anything is stored, never stored and
 * then failed with a 500, and the workspace goes on taking what still fits.
 * (What grows without end, the decisions log and each key's versions, is
 * not held in the state: heimdall-bounded-state.test.ts.)
 */
it('refuses the decision that would outgrow the state a stream keeps, and stores none of it', async () => {
  const ws = wsId('full');
  const path = `/v1/workspaces/${ws}`;
  const value = 'x'.repeat(4_000); // an entry of ~4.1 KB: its value, and where its one version is
  let accepted = 0;
  let refused: { status: number; body: Record<string, unknown> } | null = null;
  // Ten at a time (the workspace's object takes them one by one).
  for (let i = 0; i < 600 && refused === null; i += 10) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        api('PUT', `${path}/blackboard/k${i + j}`, 'agent:archivist', { value }),
      ),
    );
    for (const r of answers) {
      if (r.status === 200) accepted++;
      else refused ??= { status: r.status, body: r.body };
    }
  }
  // ~4.1 KB a key: the limit is reached after about 440 of them.
  expect(accepted).toBeGreaterThan(MAX_STATE_BYTES / 4_500);
  expect(refused?.status).toBe(409);
  expect(refused?.body).toMatchObject({ type: '/problems/invalid-transition' });
  expect(String(refused?.body.detail)).toMatch(
    new RegExp(
      `^workspace:${ws} cannot take this blackboard\\.set: its decision state would grow to \\d+ bytes of JSON, and a stream keeps at most ${MAX_STATE_BYTES}$`,
    ),
  );

  // Nothing of the refused write was kept, and smaller writes still fit.
  const entries = await api('GET', `${path}/blackboard`, 'agent:archivist');
  expect(entries.status).toBe(200);
  expect(entries.body.entries).toHaveLength(accepted);
  const line = { role: 'coder', kind: 'task_result', tokens: 100, msg_id: 'm1' };
  expect((await api('POST', `${path}/ledger/log`, 'agent:archivist', line)).status).toBe(201);
  const report = await api('GET', `${path}/ledger/report`, 'agent:archivist');
  expect(report.body.roles).toMatchObject([{ role: 'coder', tokens: 100, lines: 1 }]);
}, 240_000);
