import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeys } from '../../src/anchor/log/note';
import { decodeBundle, encodeBundle } from '../../src/anchor/log/tiles';
import { OFFLINE, ROOT, WRANGLER } from '../../tools/lib/wrangler-local.mjs';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript } from '../support/run-script';

/**
 * `npm run rebuild` on a log-mode topic under `wrangler dev` (issue 31): the
 * topic is put in log mode over the API, its archive lands in the local R2
 * bucket, one archived entry is altered there with `wrangler r2 object put
 * --local` (as anyone with write access to the bucket could), and the
 * command names the entry and exits 3.
 */
const TOOL = path.join(ROOT, 'tools/rebuild.mjs');
const BUCKET = 'wirestream-log-archive';
let server: DevServer;
let scratch: string;

beforeAll(async () => {
  const { signer } = await generateKeys('wirestream.cli-test');
  server = await startDevServer({ LOG_SIGNER_KEY: signer });
  scratch = mkdtempSync(path.join(tmpdir(), 'wirestream-bundle-'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function r2(...args: string[]) {
  const run = spawnSync(
    process.execPath,
    [WRANGLER, 'r2', 'object', ...args, '--local', '--persist-to', server.persist],
    { cwd: ROOT, env: OFFLINE, encoding: 'utf8' },
  );
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
}

async function api(pathname: string, init: RequestInit = {}, token = server.adminToken) {
  return fetch(`${server.url}${pathname}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
}

describe('npm run rebuild on a log-mode topic', () => {
  it('names an altered archived entry, exits 3, and keeps the Wire D1 has', async () => {
    const project = `logcli${Date.now().toString(36)}`;
    const topic = `project.${project}`;
    const set = await api(`/v1/topics/${topic}/anchoring`, {
      method: 'PUT',
      body: JSON.stringify({ mode: 'log', every: 5, ms: 60_000 }),
    });
    expect(set.status).toBe(200);
    const sender = 'agent:log-cli';
    const token = (await tokenFor(server, sender)) ?? '';
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const wireId = `wire_log_cli_${i}`;
      ids.push(wireId);
      const res = await api(
        `/v1/streams/project:${project}/wires`,
        {
          method: 'POST',
          body: JSON.stringify({
            wire: '1.1',
            wire_id: wireId,
            stream_id: `project:${project}`,
            type: 'review.concern',
            sender,
            ts: new Date().toISOString(),
            payload: { concern: `n${i}` },
          }),
        },
        token,
      );
      expect(res.status).toBe(201);
    }
    let view = { hcs_topic_id: '', archive: { archived_size: 0 } };
    const deadline = Date.now() + 30_000;
    while (view.archive.archived_size < 10 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      view = (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as typeof view;
    }
    expect(view.archive.archived_size).toBe(10);

    const clean = await runScript(TOOL, ['--url', server.url], {
      ...process.env,
      WIRESTREAM_ADMIN_TOKEN: server.adminToken,
    });
    expect([clean.code, clean.stdout]).toEqual([0, expect.stringMatching(/done: 10 Wires/)]);

    // Leaf 7 sits in the second checkpoint (tree size 10): alter it in that bundle.
    const key = `${BUCKET}/topics/${view.hcs_topic_id}/tile/entries/000.p/10`;
    const file = path.join(scratch, 'bundle');
    r2('get', key, '--file', file);
    const entries = decodeBundle(new Uint8Array(readFileSync(file))) ?? [];
    entries[7] = new TextEncoder().encode(
      new TextDecoder().decode(entries[7]).replace('"n7"', '"x7"'),
    );
    writeFileSync(file, encodeBundle(entries));
    r2('put', key, '--file', file);

    const run = await runScript(TOOL, ['--url', server.url], {
      ...process.env,
      WIRESTREAM_ADMIN_TOKEN: server.adminToken,
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(
      `REFUSED leaf 7 (${ids[7]}) of ${view.hcs_topic_id} (checkpoint at HCS seq 2): altered`,
    );
    expect(run.stdout).toMatch(/done: 9 Wires .*; REFUSED 1 \(archived entries or checkpoints/);
    // Nothing is emptied first: D1 keeps the Wire it projected live.
    const wire = (await (await api(`/v1/wires/${ids[7]}`)).json()) as {
      wire: { payload: unknown };
    };
    expect(wire.wire.payload).toEqual({ concern: 'n7' });
  }, 120_000);
});
