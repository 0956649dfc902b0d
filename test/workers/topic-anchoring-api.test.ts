import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { untilAnchored } from './helpers/anchoring';
import { authHeaders } from './helpers/auth';
import { post, problemOf, uniqueStream, wire11 } from './helpers/wires';

/**
 * A topic's own anchoring over the API (issue 31): `PUT /v1/topics/{topic}/anchoring`
 * (admin) sets it on the TopicObject, `GET` shows the effective settings and
 * where each comes from; bad input is a 4xx naming the field, and stores nothing.
 */

async function call(method: 'GET' | 'PUT', topic: string, body?: unknown, scopes = ['admin']) {
  const headers = await authHeaders('human:ops', scopes as never);
  return SELF.fetch(`https://ws.test/v1/topics/${encodeURIComponent(topic)}/anchoring`, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

interface View {
  topic: string;
  hcs_topic_id: string | null;
  own: Record<string, unknown> | null;
  settings: { mode: string; every: number; ms: number };
  sources: { mode: string; every: string; ms: string };
  archive: { archived_size: number; last_error: string | null };
}

const topicOf = (streamId: string) => `project.${streamId.slice('project:'.length)}`;

describe('PUT /v1/topics/{topic}/anchoring', () => {
  it('shows the deployment defaults and their sources for a topic with no setting', async () => {
    const res = await call('GET', topicOf(uniqueStream()), undefined, ['read']);
    expect(res.status).toBe(200);
    const view = (await res.json()) as View;
    // The test deployment sets ANCHOR_MODE in wrangler.toml, not the checkpoint interval.
    expect(view).toMatchObject({
      own: null,
      settings: { mode: 'envelope', every: 256, ms: 500 },
      sources: { mode: 'deployment', every: 'default', ms: 'default' },
      archive: { archived_size: 0, last_error: null },
    });
  });

  it('puts a topic in log mode, and its Wires are then anchored by checkpoints', async () => {
    const streamId = uniqueStream();
    const topic = topicOf(streamId);
    // A minute's wait: only the third Wire makes the checkpoint, however slow the machine.
    const set = await call('PUT', topic, { mode: 'log', every: 3, ms: 60_000 });
    expect(set.status).toBe(200);
    expect((await set.json()) as View).toMatchObject({
      topic,
      own: { mode: 'log', every: 3, ms: 60_000 },
      settings: { mode: 'log', every: 3, ms: 60_000 },
      sources: { mode: 'topic', every: 'topic', ms: 'topic' },
    });
    for (let i = 0; i < 3; i++)
      expect((await post(streamId, wire11(streamId, { correlation_id: null }))).status).toBe(201);
    const wires = await untilAnchored(streamId, [topic]);
    // One checkpoint for the three: one HCS message.
    expect(wires.map((w) => w.anchor.hcs_sequence_number)).toEqual([1, 1, 1]);
    // By HCS id too, now that the topic has one.
    const byId = await call('GET', wires[0]?.anchor.hcs_topic_id ?? '', undefined, ['read']);
    expect(((await byId.json()) as View).topic).toBe(topic);
    // `{}` clears the topic's own settings: the deployment's apply again.
    const cleared = (await (await call('PUT', topic, {})).json()) as View;
    expect(cleared).toMatchObject({ own: {}, settings: { mode: 'envelope' } });
    expect(cleared.sources.mode).toBe('deployment');
  });

  it('refuses bad settings with a 4xx naming the field, and keeps the old ones', async () => {
    const topic = topicOf(uniqueStream());
    expect((await call('PUT', topic, { every: 7 })).status).toBe(200);
    const cases: [unknown, number, string][] = [
      [{ mode: 'merkle' }, 422, 'mode'],
      [{ every: 0 }, 422, 'every'],
      [{ every: 2.5 }, 422, 'every'],
      [{ ms: 'fast' }, 422, 'ms'],
      [{ ms: 3_600_001 }, 422, 'ms'],
      [{ mode: 'log', cadence: 3 }, 422, '(body)'],
      ['[1,2]', 422, '(body)'],
    ];
    for (const [body, status, field] of cases) {
      const res = await call('PUT', topic, body);
      const problem = await problemOf(res);
      const label = JSON.stringify(body);
      expect([label, res.status, res.headers.get('Content-Type')]).toEqual([
        label,
        status,
        'application/problem+json',
      ]);
      expect([label, problem.errors?.[0]?.path]).toEqual([label, field]);
    }
    // The range is said, whichever bound is crossed.
    const zero = await problemOf(await call('PUT', topic, { every: 0 }));
    expect(zero.errors?.[0]?.message).toBe('must be a whole number of Wires from 1 to 100000');
    const long = await problemOf(await call('PUT', topic, { ms: 3_600_001 }));
    expect(long.errors?.[0]?.message).toBe(
      'must be a whole number of milliseconds from 1 to 3600000',
    );
    const malformed = await call('PUT', topic, '{"mode":');
    expect(malformed.status).toBe(400);
    const view = (await (await call('GET', topic)).json()) as View;
    expect(view.own).toEqual({ every: 7 });
  });

  it('names a bad or unknown topic, and asks for the admin scope to change one', async () => {
    const badName = await call('GET', ' spaced name', undefined, ['read']);
    expect(badName.status).toBe(400);
    expect((await problemOf(badName)).errors?.[0]?.path).toBe('topic');
    const unknownId = await call('GET', '0.0.987654', undefined, ['read']);
    expect(unknownId.status).toBe(404);
    expect((await problemOf(unknownId)).detail).toContain('0.0.987654');
    const reader = await call('PUT', 'default', { mode: 'log' }, ['read']);
    expect(reader.status).toBe(403);
    const limited = await SELF.fetch('https://ws.test/v1/topics/default/anchoring', {
      method: 'PUT',
      headers: {
        ...(await authHeaders('human:ops', ['admin'], { streams: ['project:a'] })),
        'Content-Type': 'application/json',
      },
      body: '{"mode":"log"}',
    });
    expect(limited.status).toBe(403);
  });
});
