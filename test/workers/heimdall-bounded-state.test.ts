import { expect, it } from 'vitest';
import { MAX_STATE_BYTES } from '../../src/kernel/kind-runner';
import { api, wsId } from './helpers/heimdall';

/**
 * What a workspace accumulates without end — its decisions log and the
 * versions of a fact set again and again — is not held in the stream's
 * decision state (one row of at most ~2 MB), so neither ever fills it: the
 * log's bodies are read back from their Wires, and a key keeps its value, where
 * its last 20 versions are (their values read back from their Wires too) and
 * the count of all.
 */
it('takes a decisions log far larger than the state a stream keeps, and serves every body', async () => {
  const ws = wsId('long-log');
  const path = `/v1/workspaces/${ws}`;
  const count = 120; // × ~20 KB = 2.4 MB of bodies, past MAX_STATE_BYTES
  const bodyOf = (i: number) => `${i}:`.padEnd(19_990, String.fromCharCode(97 + (i % 26)));
  expect(count * bodyOf(0).length).toBeGreaterThan(MAX_STATE_BYTES);
  for (let i = 0; i < count; i += 10) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        api('POST', `${path}/decisions`, 'agent:archivist', {
          title: `d${i + j}`,
          body: bodyOf(i + j),
        }),
      ),
    );
    for (const r of answers) expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(201);
  }
  const one = await api('POST', `${path}/decisions`, 'agent:archivist', {
    title: 'the last',
    body: 'still fits',
  });
  expect(one.status).toBe(201);
  expect(one.body.decision).toMatchObject({
    seq: count + 1,
    title: 'the last',
    body: 'still fits',
    haid: 'agent:archivist',
  });

  const log = await api('GET', `${path}/decisions`, 'agent:archivist');
  expect(log.status).toBe(200);
  const decisions = log.body.decisions as { seq: number; title: string; body: string }[];
  expect(decisions).toHaveLength(count + 1);
  const byTitle = new Map(decisions.map((d) => [d.title, d]));
  for (let i = 0; i < count; i++) expect(byTitle.get(`d${i}`)?.body, `d${i}`).toBe(bodyOf(i));
  expect(decisions.map((d) => d.seq)).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1));

  const md = await api('GET', `${path}/documents/decisions.md`, 'agent:archivist');
  expect(md.status).toBe(200);
  expect(String(md.text)).toContain(`## ${count + 1}. the last`);
  expect(String(md.text)).toContain(bodyOf(count - 1));
}, 240_000);

it('keeps many facts, each set again and again, writable, with their last 20 versions and the count of all', async () => {
  const ws = wsId('busy-fact');
  const path = `/v1/workspaces/${ws}`;
  // 30 facts set 30 times with ~4 KB: 30 × 21 × 4 KB = 2.5 MB had the state
  // held each kept version's value, past MAX_STATE_BYTES at about the 21st fact.
  const keys = 30;
  const rounds = 30;
  const value = (round: number, key: number) => `${round}/${key}:`.padEnd(4_000, 'v');
  expect(keys * 21 * value(0, 0).length).toBeGreaterThan(MAX_STATE_BYTES);
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(
      Array.from({ length: keys }, (_, key) =>
        api('PUT', `${path}/blackboard/status-${key}`, 'agent:archivist', {
          value: value(round, key),
        }),
      ),
    );
    for (const r of answers) expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
  }
  for (const key of [0, 17, keys - 1]) {
    const got = await api('GET', `${path}/blackboard/status-${key}`, 'agent:archivist');
    expect(got.status).toBe(200);
    const entry = got.body.entry as {
      value: string;
      versions: number;
      history: { value: string; by: string }[];
    };
    expect(entry.value).toBe(value(rounds - 1, key));
    expect(entry.versions).toBe(rounds);
    // Its last 20 versions, oldest first, ending with its value, each read back from its Wire.
    expect(entry.history.map((h) => h.value)).toEqual(
      Array.from({ length: 20 }, (_, k) => value(rounds - 20 + k, key)),
    );
    expect(new Set(entry.history.map((h) => h.by))).toEqual(new Set(['agent:archivist']));
  }
}, 240_000);
