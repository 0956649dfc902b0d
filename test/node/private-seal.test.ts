import { createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { payloadKeks, privacyProblem, privateProjects, projectOf } from '../../src/private/config';
import { aesKey, openEnvelope, sealWire } from '../../src/private/seal';
import { canonicalJson, type Wire } from '../../src/protocol';

/**
 * Private payloads' pure parts (src/private/): which Wires are private, the
 * KEK list, and the sealed envelope, opened here by Node's own AES-GCM from
 * the format alone (README, Private payloads) rather than by `openEnvelope`.
 */
const PROJECTS = JSON.stringify({
  acme: { streams: ['project:acme', 'task:acme-'], correlations: ['acme-'] },
  beta: { correlations: ['project:'] },
});
const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');

const wire: Wire = {
  wire: '1.1',
  wire_id: 'w-1',
  stream_id: 'project:acme',
  stream_seq: 3,
  correlation_id: null,
  causation_id: null,
  type: 'review.concern',
  sender: 'agent:quinn-07',
  ts: '2026-11-27T18:00:00Z',
  payload: { concern: 'the merger', n: 1 },
};

describe('which Wires are private', () => {
  const projects = privateProjects({ PRIVATE_PROJECTS: PROJECTS });
  const of = (stream_id: string, correlation_id: string | null = null) =>
    projects.ok ? projectOf(projects.value, { stream_id, correlation_id }) : 'unreadable';

  it('matches stream and correlation prefixes, the first project in order winning', () => {
    expect(of('project:acme')).toBe('acme');
    expect(of('task:acme-7')).toBe('acme');
    expect(of('agent:quinn-07', 'acme-q4')).toBe('acme');
    expect(of('agent:quinn-07', 'project:kv-m02')).toBe('beta');
    expect(of('project:acme', 'project:kv-m02')).toBe('acme');
    expect(of('task:acme7')).toBeNull();
    expect(of('agent:quinn-07')).toBeNull();
  });

  it('takes wrangler.toml tables as well as JSON text, and nothing when unset', () => {
    expect(privateProjects({ PRIVATE_PROJECTS: JSON.parse(PROJECTS) })).toEqual(projects);
    expect(privateProjects({})).toEqual({ ok: true, value: [] });
  });

  it.each([
    ['[]', 'PRIVATE_PROJECTS must be a JSON object'],
    ['{"Acme":{"streams":["x"]}}', 'PRIVATE_PROJECTS.Acme: a project name'],
    ['{"acme":{"streams":"x"}}', 'PRIVATE_PROJECTS.acme.streams: a list of prefixes'],
    ['{"acme":{"streams":[""]}}', 'PRIVATE_PROJECTS.acme.streams: a list of prefixes'],
    ['{"acme":{}}', 'PRIVATE_PROJECTS.acme: names no stream or correlation prefix'],
  ])('refuses %s, naming the place', (raw, detail) => {
    const parsed = privateProjects({ PRIVATE_PROJECTS: raw });
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.detail).toContain(detail);
  });

  it('reads PAYLOAD_KEK current first, and says what is wrong with it', () => {
    expect(payloadKeks({ PAYLOAD_KEK: `b:${KEY_B}, a:${KEY_A}` })).toMatchObject({
      ok: true,
      value: [{ kid: 'b' }, { kid: 'a' }],
    });
    const detail = (v: string | undefined) => {
      const p = payloadKeks({ PAYLOAD_KEK: v });
      return p.ok ? 'ok' : p.detail;
    };
    expect(detail(undefined)).toMatch(/PAYLOAD_KEK is not set/);
    expect(detail('generated-on-first-npm-start')).toMatch(/PAYLOAD_KEK is not set/);
    expect(detail(`a:${KEY_A},a:${KEY_B}`)).toMatch(/names kid "a" twice/);
    expect(detail(`a:${KEY_A},b:${KEY_B.slice(0, -1)}`)).toMatch(/entry 2 is not/);
    expect(detail(`a:${randomBytes(16).toString('base64')}`)).toMatch(/entry 1 is not/);
  });

  it('never reads a Wire as public when it cannot tell', () => {
    const env = { PRIVATE_PROJECTS: PROJECTS, PAYLOAD_KEK: `a:${KEY_A}` };
    expect(privacyProblem(env, wire)).toBeNull();
    expect(privacyProblem({ ...env, PAYLOAD_KEK: undefined }, wire)).toMatch(
      /^private project "acme": PAYLOAD_KEK is not set/,
    );
    expect(privacyProblem({ ...env, PAYLOAD_KEK: undefined }, { ...wire, stream_id: 'x:1' })).toBe(
      null,
    );
    expect(
      privacyProblem({ ...env, PRIVATE_PROJECTS: '{' }, { ...wire, stream_id: 'x:1' }),
    ).toMatch(/^PRIVATE_PROJECTS is not JSON/);
  });
});

describe('the sealed envelope', () => {
  it('is AES-256-GCM over the canonical payload, the rest of the envelope as additional data', async () => {
    const raw = randomBytes(32);
    const message = await sealWire(wire, 'dk-1', await aesKey(raw));
    const sealed = JSON.parse(message) as Record<string, unknown> & {
      enc: { iv: string };
      payload: string;
    };
    expect(canonicalJson(sealed)).toBe(message);
    expect(message).not.toContain('merger');
    const { payload, ...clear } = sealed;
    const bytes = Buffer.from(payload, 'base64');
    // Node's own AES-GCM, from the format alone.
    const decipher = createDecipheriv('aes-256-gcm', raw, Buffer.from(sealed.enc.iv, 'base64'));
    decipher.setAAD(Buffer.from(canonicalJson(clear)));
    decipher.setAuthTag(bytes.subarray(-16));
    const plain = Buffer.concat([decipher.update(bytes.subarray(0, -16)), decipher.final()]);
    expect(plain.toString()).toBe(canonicalJson(wire.payload));
    expect(bytes.length).toBe(canonicalJson(wire.payload).length + 16);
    const { enc: _e, ...rest } = sealed;
    expect(rest).toMatchObject({ ...wire, payload: expect.any(String) });
  });

  it('opens with its key only, and only unchanged', async () => {
    const key = await aesKey(randomBytes(32));
    const sealed = JSON.parse(await sealWire(wire, 'dk-1', key)) as Record<string, unknown>;
    expect(await openEnvelope(sealed, key)).toEqual({ ok: true, wire });
    expect((await openEnvelope(sealed, await aesKey(randomBytes(32)))).ok).toBe(false);
    expect((await openEnvelope({ ...sealed, stream_seq: 4 }, key)).ok).toBe(false);
    expect((await openEnvelope({ ...sealed, sig: 'x' }, key)).ok).toBe(false);
    const again = JSON.parse(await sealWire(wire, 'dk-1', key)) as Record<string, unknown>;
    expect(again.payload).not.toBe(sealed.payload);
  });

  it('seals and opens many Wires (cost logged)', async () => {
    const key = await aesKey(randomBytes(32));
    const n = 2000;
    const started = performance.now();
    const sealed: string[] = [];
    for (let i = 0; i < n; i++)
      sealed.push(await sealWire({ ...wire, stream_seq: i + 1 }, 'dk-1', key));
    const sealMs = performance.now() - started;
    const opened = await Promise.all(sealed.map((m) => openEnvelope(JSON.parse(m), key)));
    console.log(
      `private payloads: sealing ${((sealMs * 1000) / n).toFixed(1)} µs per Wire in Node (${n} Wires)`,
    );
    expect(opened.every((o) => o.ok)).toBe(true);
  });
});
