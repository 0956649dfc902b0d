import path from 'node:path';
import { ulid } from 'ulidx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript, type ScriptRun } from '../support/run-script';

/** Seed 002's run documents from `npx wirestream run …`, against `wrangler dev`. */

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const WRITER = 'agent:writer-cli';
const WORKER = 'agent:researcher-cli';
const CONDUCTOR = 'coordinator:conductor-cli';
let server: DevServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  server = await startDevServer();
  for (const sub of [WRITER, WORKER, CONDUCTOR]) tokens[sub] = (await tokenFor(server, sub)) ?? '';
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function as(sub: string, ...args: string[]): Promise<ScriptRun> {
  return runScript(BIN, args, {
    ...process.env,
    WIRESTREAM_URL: server.url,
    WIRESTREAM_TOKEN: tokens[sub],
  });
}

const json = (r: ScriptRun) => JSON.parse(r.stdout.trim()) as Record<string, unknown>;
const msg = (value: unknown) => JSON.stringify(value);

describe('npx wirestream run', () => {
  it('creates a run, messages its writer (ack and reject), reads the document and its revisions', async () => {
    const run = ulid();
    const created = await as(
      CONDUCTOR,
      'run',
      run,
      '--create',
      msg({
        title: 'HCS ordering',
        writer: WRITER,
        conductors: [CONDUCTOR],
        workers: [WORKER],
        sections: [
          { id: 'summary', body: 'Prompt: how does HCS order messages?' },
          { id: 'findings' },
        ],
      }),
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(json(created)).toMatchObject({ run_id: run, stream_id: `run:${run}`, revision: 0 });

    const finding = {
      type: 'WriterApplyPatch',
      section: 'findings',
      ops: [{ op: 'replace', path: '/body', value: 'Consensus timestamps order a topic.' }],
      proposal: true,
      source_worker_id: WORKER,
    };
    const proposed = await as(WORKER, 'run', run, '--message', msg(finding), '--json');
    expect(proposed.code, proposed.stderr).toBe(0);
    const ack = json(proposed);
    expect(ack).toMatchObject({ type: 'WriterAck', outcome: 'proposal', revision: 0 });

    // A worker's canon change: a WriterReject, printed, exit 1; nothing changes.
    const canon = await as(
      WORKER,
      'run',
      run,
      '--message',
      msg({ ...finding, proposal: false }),
      '--json',
    );
    expect(canon.code).toBe(1);
    expect(json(canon)).toMatchObject({ type: 'WriterReject', revision: 0 });
    expect(String(json(canon).reason)).toMatch(/send this as a proposal/);
    const conductor = await as(CONDUCTOR, 'run', run, '--message', msg(finding));
    expect(conductor.code).toBe(1);
    expect(conductor.stdout).toMatch(/^WriterReject .*conductor holds no mutation capability/);

    const accept = { type: 'WriterAcceptProposal', proposal_id: ack.proposal_id };
    const merged = await as(WRITER, 'run', run, '--message', msg(accept));
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^WriterAck \S+: merged at revision 1$/m);

    const asked = await as(
      WORKER,
      'run',
      run,
      '--request',
      'spawn.worker',
      '--payload',
      '{"role":"critic"}',
      '--json',
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(json(asked)).toMatchObject({ type: 'WriterAck', outcome: 'delivered', revision: 1 });

    const latest = json(await as(WORKER, 'run', run, '--json'));
    expect(latest).toMatchObject({ run_id: run, revision: 1, latest_revision: 1 });
    expect(latest.document).toMatchObject({
      sections: { findings: { body: 'Consensus timestamps order a topic.' } },
    });
    const first = json(await as(WORKER, 'run', run, '--revision', '0', '--json'));
    expect(first).toMatchObject({
      revision: 0,
      document: { sections: { findings: { body: '' } } },
    });

    const revs = await as(WORKER, 'run', run, '--revisions', '--json');
    expect(json(revs)).toMatchObject({
      run_id: run,
      latest_revision: 1,
      revisions: [
        { revision: 0, sender: CONDUCTOR },
        { revision: 1, sender: WRITER, proposal_id: ack.proposal_id },
      ],
    });
    const human = await as(WORKER, 'run', run, '--revisions');
    expect(
      human.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 2)),
    ).toEqual([
      ['0', CONDUCTOR],
      ['1', WRITER],
    ]);
  }, 120_000);

  it('refuses bad input: a problem naming the field (exit 1), a usage error (exit 2)', async () => {
    const run = ulid();
    const bad = await as(WORKER, 'run', run, '--message', '{"type":"WriterShout"}', '--json');
    expect(bad.code).toBe(1);
    expect(json(bad)).toMatchObject({
      status: 422,
      error: { detail: expect.stringMatching(/^type: /) },
    });
    const missing = await as(WORKER, 'run', run, '--revisions', '--json');
    expect(missing.code).toBe(1);
    expect(json(missing)).toMatchObject({ status: 404 });
    const both = await as(WORKER, 'run', run, '--revisions', '--message', '{}');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/cannot be combined/);
    const notJson = await as(WORKER, 'run', run, '--create', 'writer');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--create is not JSON/);
  }, 60_000);
});
