import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol';
import { mirrorMessages, untilAnchored } from './helpers/anchoring';
import { post, problemOf, readAll, uniqueStream, wire11 } from './helpers/wires';

describe('canonical JSON at the edges', () => {
  it('refuses a Wire holding a lone surrogate with 422, names the field and stores nothing', async () => {
    const s = uniqueStream();
    const res = await post(s, wire11(s, { payload: { concern: 'naming', note: 'half \ud800' } }));
    expect(res.status).toBe(422);
    const problem = await problemOf(res);
    expect(problem.type).toBe('/problems/invalid-wire');
    expect(problem.errors?.map((e) => e.path)).toEqual(['payload.note']);
    expect(problem.detail).toMatch(/lone UTF-16 surrogate/);
    expect(await readAll(s)).toEqual([]);
  });

  it('refuses a lone surrogate in an envelope field or a payload key as well', async () => {
    const s = uniqueStream();
    const inRef = await post(s, wire11(s, { causation_id: '\udc00' }));
    expect(inRef.status).toBe(422);
    expect((await problemOf(inRef)).errors?.map((e) => e.path)).toEqual(['causation_id']);
    const inKey = await post(s, wire11(s, { payload: { concern: 'naming', '\ud83d': 1 } }));
    expect(inKey.status).toBe(422);
    expect((await problemOf(inKey)).errors?.map((e) => e.path)).toEqual(['payload.\ud83d']);
    expect(await readAll(s)).toEqual([]);
  });

  it('takes a well-formed surrogate pair (an emoji) as any other text', async () => {
    const s = uniqueStream();
    expect((await post(s, wire11(s, { payload: { concern: 'naming \u{1F600}' } }))).status).toBe(
      201,
    );
  });

  it('anchors RFC 8785 bytes: integer-like keys sorted as text, and replays in any key order', async () => {
    const s = uniqueStream('project');
    const body = wire11(s, {
      correlation_id: null,
      payload: { concern: 'naming', votes: { 2: 'b', 10: 'a', x: 1 } },
    });
    expect((await post(s, body)).status).toBe(201);
    const again = await post(s, {
      ...body,
      payload: { votes: { x: 1, 10: 'a', 2: 'b' }, concern: 'naming' },
    });
    expect(again.headers.get('idempotent-replay')).toBe('true');

    const [wire] = await untilAnchored(s, [`project.${s.slice('project:'.length)}`]);
    const [message] = await mirrorMessages(wire?.anchor.hcs_topic_id ?? '');
    const onTopic = atob(message?.message ?? '');
    expect(onTopic).toContain('"votes":{"10":"a","2":"b","x":1}');
    expect(onTopic).toBe(canonicalJson({ ...body, stream_seq: 1 }));
  });
});
