import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { topicStub } from '../../src/topic/stub';
import { api, untilAnchored } from './helpers/anchoring';
import { post, problemOf, uniqueStream, wire11 } from './helpers/wires';

/**
 * A deployment whose WIRE_MAX_BYTES (200000 in this project, `workers-vars`
 * in vitest.config.ts) is larger than a log entry can hold once the server's
 * fields are added: a tlog-tiles entry is at most 65,535 bytes, and the R2
 * archive stops for good at a larger leaf. No topic keeps a log then: a topic
 * set to log mode anchors in envelope mode and says why, a large Wire gets a
 * message of its own, and asking for log mode is a 422 on `mode`. The test
 * project has private projects (PRIVATE_PROJECTS), so the bound is the sealed
 * one: 47,060 bytes.
 */

const topicOf = (streamId: string) => `project.${streamId.slice('project:'.length)}`;
const WHY = 'WIRE_MAX_BYTES is 200000';
const LARGEST = 'a log needs WIRE_MAX_BYTES at most 47060';

interface AnchoringView {
  own: unknown;
  settings: { mode: string };
  running_mode: string;
  log_unavailable: string | null;
  archive: { archived_size: number; last_error: string | null };
}

async function anchoring(topic: string): Promise<AnchoringView> {
  return (await (await api(`/v1/topics/${topic}/anchoring`)).json()) as AnchoringView;
}

describe('log mode under a WIRE_MAX_BYTES larger than a log entry holds', () => {
  it('anchors a topic set to log mode in envelope mode, and its anchoring view says why', async () => {
    const topic = topicOf(uniqueStream());
    // Set over RPC, as a topic set to log mode before WIRE_MAX_BYTES was raised.
    await topicStub(env, topic).setAnchoring({ mode: 'log', every: 1 });
    const view = await anchoring(topic);
    expect(view.settings.mode).toBe('log');
    expect(view.running_mode).toBe('envelope');
    expect(view.log_unavailable).toContain(WHY);
    expect(view.log_unavailable).toContain('a log entry (tlog-tiles) holds at most 65535');
    expect(view.log_unavailable).toContain(LARGEST);
  });

  it('anchors a Wire larger than a log entry as a message of its own, not a leaf the archive cannot copy', async () => {
    const streamId = uniqueStream();
    const topic = topicOf(streamId);
    await topicStub(env, topic).setAnchoring({ mode: 'log', every: 1 });
    // ~70 KB: accepted under WIRE_MAX_BYTES, larger than any tlog-tiles entry.
    const body = wire11(streamId, {
      correlation_id: null,
      payload: { concern: 'naming', notes: 'a long review '.repeat(5000) },
    });
    expect(JSON.stringify(body).length).toBeGreaterThan(65_535);
    expect((await post(streamId, body)).status).toBe(201);

    const [wire] = await untilAnchored(streamId, [topic], 60_000);
    expect(wire?.anchor.status).toBe('anchored');
    const proof = (await (await api(`/v1/wires/${body.wire_id}/proof`)).json()) as {
      mode?: string;
      hcs_chunks?: number;
      message?: string;
    };
    // An envelope-mode proof: the Wire's own HCS message, chunked, not a log leaf.
    expect(proof.mode).toBeUndefined();
    const bytes = new TextEncoder().encode(proof.message ?? '').byteLength;
    expect(bytes).toBeGreaterThan(65_535);
    expect(proof.hcs_chunks).toBe(Math.ceil(bytes / 1024));
    // Nothing was made a leaf, so the archive has nothing it cannot copy.
    const view = await anchoring(topic);
    expect(view.archive).toEqual({ archived_size: 0, last_error: null });
  }, 90_000);

  it('refuses PUT {"mode":"log"} with a 422 on mode, and keeps the topic’s settings', async () => {
    const topic = topicOf(uniqueStream());
    const put = (body: unknown) =>
      api(`/v1/topics/${topic}/anchoring`, { method: 'PUT', body: JSON.stringify(body) });
    const refused = await put({ mode: 'log', every: 10 });
    expect(refused.status).toBe(422);
    const problem = await problemOf(refused);
    expect(problem.errors?.[0]?.path).toBe('mode');
    expect(problem.errors?.[0]?.message).toContain(WHY);
    expect(problem.detail).toContain(LARGEST);
    expect((await anchoring(topic)).own).toBeNull();
    // Settings that do not ask for a log are taken.
    expect((await put({ every: 10 })).status).toBe(200);
    expect((await put({ mode: 'envelope' })).status).toBe(200);
  });
});
