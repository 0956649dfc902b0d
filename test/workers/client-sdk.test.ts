import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { WirestreamClient, WirestreamError } from '../../src/client';
import { tokenFor } from './helpers/auth';

// The SDK inside workerd (what a Worker calling Wirestream would run), with
// the Worker under test as its fetch.
async function client(sender = 'agent:sdk-in-workerd') {
  return new WirestreamClient({
    baseUrl: 'https://ws.test',
    sender,
    token: await tokenFor({ sub: sender, scopes: ['append', 'read'] }),
    fetch: (input, init) => SELF.fetch(input, init),
  });
}

describe('the client SDK in workerd', () => {
  it('appends with a minted wire_id and reads the Wire back', async () => {
    const c = await client();
    const stream = `project:sdk-${Date.now().toString(36)}`;
    const first = await c.append(stream, { type: 'review.concern', payload: { concern: 'edge' } });
    expect(first.wire.wire_id).toMatch(/^wire_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(first).toMatchObject({ replay: false, receipt: { stream_seq: 1 } });
    const page = await c.read(stream);
    expect(page.wires.map((w) => w.wire_id)).toEqual([first.wire.wire_id]);
  });

  it('gets the stored receipt back when the same Wire is sent again', async () => {
    const c = await client();
    const stream = `project:sdk-replay-${Date.now().toString(36)}`;
    const input = {
      type: 'review.concern',
      payload: { concern: 'twice' },
      wire_id: 'wire_sdk_twice',
    };
    const ts = new Date().toISOString();
    const a = await c.append(stream, { ...input, ts });
    const b = await c.append(stream, { ...input, ts });
    expect(b.replay).toBe(true);
    expect(b.receipt).toEqual(a.receipt);
    expect((await c.info(stream))?.count).toBe(1);
  });

  it('raises problem+json as a WirestreamError with its stable code, without retrying a 4xx', async () => {
    const c = await client();
    const error = await c
      .append('project:sdk-stale', {
        type: 'review.concern',
        payload: { concern: 'x' },
        ifMatch: 7,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WirestreamError);
    expect(error).toMatchObject({ status: 412, code: 'stale-stream' });
  });
});
