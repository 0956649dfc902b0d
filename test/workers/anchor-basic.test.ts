import { describe, expect, it } from 'vitest';
import { mirrorMessages, untilAnchored } from './helpers/anchoring';
import { post, uniqueStream, wire11 } from './helpers/wires';

describe('HCS anchoring', () => {
  it('anchors an appended Wire with the receipt data of the real SDK', async () => {
    const streamId = uniqueStream('project');
    const body = wire11(streamId, { correlation_id: null });
    expect((await post(streamId, body)).status).toBe(201);
    const topic = `project.${streamId.slice('project:'.length)}`;
    const [wire] = await untilAnchored(streamId, [topic]);
    expect(wire?.anchor).toMatchObject({ status: 'anchored', topic, hcs_sequence_number: 1 });
    expect(wire?.anchor.hcs_topic_id).toMatch(/^0\.0\.\d+$/);
    expect(wire?.anchor.consensus_timestamp).toMatch(/^\d+\.\d{9}$/);
    expect(atob(wire?.anchor.running_hash ?? '')).toHaveLength(48);
    const [message] = await mirrorMessages(wire?.anchor.hcs_topic_id ?? '');
    expect(message?.running_hash).toBe(wire?.anchor.running_hash);
    expect(JSON.parse(atob(message?.message ?? ''))).toMatchObject({
      wire_id: body.wire_id,
      stream_seq: 1,
    });
  });
});
