import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelNames } from '../../src/projection/models';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript, type ScriptRun } from '../support/run-script';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TOOL = path.join(ROOT, 'tools/rebuild.mjs');
let server: DevServer;

beforeAll(async () => {
  server = await startDevServer();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function rebuild(args: string[]): Promise<ScriptRun> {
  return runScript(TOOL, ['--url', server.url, ...args], {
    ...process.env,
    WIRESTREAM_ADMIN_TOKEN: server.adminToken,
  });
}

async function anchoredCount(): Promise<number> {
  const res = await fetch(`${server.url}/v1/topics`, {
    headers: { Authorization: `Bearer ${server.adminToken}` },
  });
  const body = (await res.json()) as { topics: { anchored: number }[] };
  return body.topics.reduce((sum, t) => sum + t.anchored, 0);
}

describe('npm run rebuild', () => {
  it('replays the topics from the mirror, printing progress, and the read models answer as before', async () => {
    const sender = 'agent:rebuild-cli';
    const token = (await tokenFor(server, sender)) ?? '';
    const auth = { Authorization: `Bearer ${token}` };
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/v1/streams/${sender}/wires`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          wire: '1.1',
          wire_id: `wire_rebuild_cli_${Date.now().toString(36)}_${i}`,
          stream_id: sender,
          type: 'agent.capacity.updated',
          sender,
          ts: new Date().toISOString(),
          payload: { available_units: i + 1, max_units: 5 },
        }),
      });
      expect(res.status).toBe(201);
    }
    // Anchored on HCS (what rebuild replays) and projected into D1 (what the
    // read model answers from): D1 writes are gathered, so the second can
    // trail the first by a few hundred milliseconds.
    const agent = async () =>
      (await (
        await fetch(`${server.url}/v1/agents/rebuild-cli`, { headers: auth })
      ).json()) as Record<string, unknown>;
    const deadline = Date.now() + 30_000;
    let before = await agent();
    while (((await anchoredCount()) < 3 || before.available_units !== 3) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      before = await agent();
    }

    const { code, stdout, stderr } = await rebuild([]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // Every read model the registry lists (each module adds its own), then wire_events.
    expect(stdout.startsWith(`rebuilding ${modelNames().join(', ')} and wire_events`)).toBe(true);
    expect(stdout).toMatch(/wrote 1\/1 streams \(3 Wires\)/);
    expect(stdout).toMatch(/done: 3 Wires in 1 streams from 1 topic\(s\)/);

    const after = await (
      await fetch(`${server.url}/v1/agents/rebuild-cli`, { headers: auth })
    ).json();
    expect(after).toEqual(before);
    expect(after).toMatchObject({ available_units: 3, max_units: 5 });

    // The rebuild ran in the coordinator: --follow replays its progress.
    const followed = await rebuild(['--follow']);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe(stdout);

    const stale = await rebuild(['--stale']);
    expect(stale.stdout).toMatch(/done: 0 Wires/);
  }, 90_000);

  it('refuses an unknown option with exit code 2 and its usage, rebuilding nothing', async () => {
    const before = await fetch(`${server.url}/v1/admin/projection`, {
      headers: { Authorization: `Bearer ${server.adminToken}` },
    }).then((r) => r.text());
    const { code, stdout, stderr } = await rebuild(['--model', 'task_run_state']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      "error: Unknown option '--model'\n\nusage: npm run rebuild -- [--url URL] [--models a,b | --stale | --follow]\n",
    );
    const after = await fetch(`${server.url}/v1/admin/projection`, {
      headers: { Authorization: `Bearer ${server.adminToken}` },
    }).then((r) => r.text());
    expect(after).toBe(before);
  });
});
