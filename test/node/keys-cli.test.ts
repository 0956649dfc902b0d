import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';
import { runScript, type ScriptRun } from '../support/run-script';

/**
 * `wirestream keys new|register|rotate|revoke` and WIRESTREAM_KEY against
 * `wrangler dev`: an agent's key life from the shell, each refusal as the
 * user sees it (exit 1, the problem's detail on stderr).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/wirestream.mjs');
const AGENT = `agent:keys-cli-${Date.now().toString(36)}`;
const PROJECT = `project:keys-cli-${Date.now().toString(36)}`;
/** A private project's stream (PRIVATE_PROJECTS below): its payloads are sealed on HCS. */
const SECRET_STREAM = `project:keys-cli-sec-${Date.now().toString(36)}`;
const PRIVATE = {
  PRIVATE_PROJECTS: '{"sec":{"streams":["project:keys-cli-sec-"]}}',
  PAYLOAD_KEK: `test-kek:${Buffer.alloc(32, 7).toString('base64')}`,
};
let server: DevServer;
let token = '';
let home = '';

beforeAll(async () => {
  server = await startDevServer(PRIVATE);
  token = (await tokenFor(server, AGENT)) ?? '';
  home = mkdtempSync(path.join(tmpdir(), 'wirestream-keys-'));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

function cli(args: string[], key?: string): Promise<ScriptRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    WIRESTREAM_URL: server.url,
    WIRESTREAM_TOKEN: token,
  };
  delete env.WIRESTREAM_KEY;
  if (key) env.WIRESTREAM_KEY = key;
  return runScript(BIN, args, env);
}

interface Served {
  sig?: { kid: string };
  anchor: { status: string; hcs_topic_id: string; hcs_sequence_number: number };
}

/** The stream's Wires once all are anchored (anchoring to the stand-in runs by itself). */
async function anchored(stream: string): Promise<Served[]> {
  for (const deadline = Date.now() + 30_000; ; ) {
    const res = await fetch(`${server.url}/v1/streams/${stream}/wires`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const { wires } = (await res.json()) as { wires: Served[] };
    if (wires.every((w) => w.anchor.status === 'anchored') || Date.now() > deadline) return wires;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `POST /v1/admin/private-keys/export` (an admin's by default). */
function exportKey(project: string, bearer = server.adminToken): Promise<Response> {
  return fetch(`${server.url}/v1/admin/private-keys/export`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ project }),
  });
}

const json = (r: ScriptRun) => JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
const append = (key?: string, stream = PROJECT) =>
  cli(['append', stream, '--type', 'review.concern', '--payload', '{"concern":"cli"}'], key);

describe('wirestream keys', { timeout: 90_000 }, () => {
  it('makes a key, registers it, signs with it, rotates it and revokes the new one', async () => {
    const made = await cli(['keys', 'new', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const first = json(made) as { kid: string; file: string };
    expect(first.file.startsWith(path.join(home, '.wirestream', 'keys'))).toBe(true);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);

    expect((await append()).code).toBe(0); // no key yet: unsigned is fine

    const registered = await cli(['keys', 'register', '--key', first.file, '--json']);
    expect(registered.code, registered.stderr).toBe(0);
    expect(json(registered)).toMatchObject({ agent: AGENT, kid: first.kid });

    const unsigned = await append();
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toContain(`must carry sig`);
    expect(unsigned.stderr).toContain(first.kid);
    const signed = await append(first.file);
    expect(signed.code, signed.stderr).toBe(0);
    // A Wire the server builds (a GSD event): the CLI signs what the refusal shows, and asks again.
    const gsd = `keys-${Date.now().toString(36)}`;
    const started = '--type task:started --plan 01-01 --task 1'.split(' ');
    const emit = (key?: string) => cli(['events', 'emit', '--project', gsd, ...started], key);
    const refusedEvent = await emit();
    expect(refusedEvent.code).toBe(1);
    expect(refusedEvent.stderr).toContain('Wirestream-Signatures');
    const emitted = await emit(first.file);
    expect(emitted.code, emitted.stderr).toBe(0);
    const events = await fetch(`${server.url}/v1/streams/gsd:${gsd}/wires`, {
      headers: { Authorization: `Bearer ${server.adminToken}` },
    });
    const gsdWires = ((await events.json()) as { wires: Served[] }).wires;
    expect(gsdWires.map((w) => w.sig?.kid ?? null)).toEqual([first.kid]);
    // The CLI signs in the committed form, which a private project requires.
    const sealed = await append(first.file, SECRET_STREAM);
    expect(sealed.code, sealed.stderr).toBe(0);

    const rotated = await cli(['keys', 'rotate', '--json'], first.file);
    expect(rotated.code, rotated.stderr).toBe(0);
    const second = json(rotated) as { kid: string; file: string; previous_kid: string };
    expect(second.previous_kid).toBe(first.kid);
    const old = await append(first.file);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('retired');
    expect((await append(second.file)).code).toBe(0);

    const revoked = await cli(
      ['keys', 'revoke', second.kid, '--reason', 'test', '--json'],
      second.file,
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    const after = await append(second.file);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('revoked');

    // What the server stored carries the signature, for anyone reading the stream.
    const wires = await anchored(PROJECT);
    expect(wires.map((w) => w.sig?.kid ?? null)).toEqual([null, first.kid, second.kid]);

    // The auditor, from the mirror alone: where each Wire and the agent's key Wires sit on HCS.
    const keysTopic = (await anchored(AGENT))[0]?.anchor.hcs_topic_id ?? '';
    const checkArgs = (w: Served) => [
      'keys',
      'check',
      w.anchor.hcs_topic_id,
      String(w.anchor.hcs_sequence_number),
      '--keys-topic',
      keysTopic,
      '--coordinator',
      server.standin.ledger.operator.accountId,
      '--mirror',
      server.standin.url,
      '--json',
    ];
    const check = (w: Served) => cli(checkArgs(w));
    const [plain, byFirst, bySecond] = await Promise.all(wires.map(check));
    expect(byFirst?.code, byFirst?.stderr).toBe(0);
    expect(json(byFirst as ScriptRun)).toMatchObject({ ok: true, sender: AGENT, kid: first.kid });
    expect(plain?.code).toBe(1);
    expect(json(plain as ScriptRun)).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(bySecond?.code).toBe(1);
    expect(json(bySecond as ScriptRun)).toMatchObject({ ok: false, reason: 'revoked' });

    // A private project's Wire: checked on the mirror without its data key.
    const [secret] = await anchored(SECRET_STREAM);
    const bySealed = await check(secret as Served);
    expect(bySealed.code, bySealed.stderr).toBe(0);
    expect(json(bySealed)).toMatchObject({ ok: true, kid: first.kid, payload: 'sealed' });

    // With the project's data key, exported by an admin, the payload is decrypted and checked too.
    const exported = await exportKey('sec');
    expect(exported.status).toBe(200);
    const dataKey = (await exported.json()) as { kid: string; key: string; alg: string };
    expect(dataKey).toMatchObject({ kid: expect.stringMatching(/^dk-/), alg: 'A256GCM' });
    const keyFile = path.join(home, 'sec-data-key.json');
    writeFileSync(keyFile, JSON.stringify(dataKey), { mode: 0o600 });
    const withKey = (value: string) => cli([...checkArgs(secret as Served), '--data-key', value]);
    const opened = await withKey(keyFile);
    expect(opened.code, opened.stderr).toBe(0);
    expect(json(opened)).toMatchObject({ ok: true, kid: first.kid, payload: 'opened' });
    const inline = await withKey(`${dataKey.kid}:${dataKey.key}`);
    expect(json(inline)).toMatchObject({ ok: true, payload: 'opened' });
    // Another key under the same id does not open it: exit 1, said of --data-key.
    const wrong = await withKey(`${dataKey.kid}:${Buffer.alloc(32, 9).toString('base64url')}`);
    expect(wrong.code).toBe(1);
    expect(json(wrong)).toMatchObject({ ok: false, reason: 'payload-mismatch' });
    expect(json(wrong).detail).toMatch(/^--data-key: data key dk-\S+ does not open it/);
    const otherKid = await withKey(`dk-other:${dataKey.key}`);
    expect(otherKid.code).toBe(1);
    expect(json(otherKid).detail).toContain(`--data-key holds data key dk-other`);
    const garbage = await withKey('not-a-key');
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toContain('--data-key: not JSON and not <kid>:<key>');
  });

  it('exports a data key to admins only, for private projects only', async () => {
    const asAgent = await exportKey('sec', token);
    expect(asAgent.status).toBe(403);
    const unknown = await exportKey('nope');
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { detail: string }).detail).toMatch(/^project: "nope"/);
  });

  it('refuses to write a key file inside a git work tree', async () => {
    const inRepo = await cli(['keys', 'new', '--out', path.join(ROOT, 'agent.jwk')]);
    expect(inRepo.code).toBe(2);
    expect(inRepo.stderr).toContain('inside the git work tree');
  });
});
