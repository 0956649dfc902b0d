// Code in workerd reaches the stand-in started by the global setup with a
// plain fetch, and the SDK's health check gets the answer it expects.
import { describe, expect, inject, it } from 'vitest';

describe('hedera stand-in from workerd', () => {
  it('answers /__standin/info and the SDK health check', async () => {
    const url = inject('standinUrl');
    const info = (await (await fetch(`${url}/__standin/info`)).json()) as { operatorId: string };
    expect(info.operatorId).toBe('0.0.2');
    const health = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web+proto', 'x-grpc-web': '1' },
      body: new Uint8Array(0),
    });
    expect(health.status).toBe(200);
    expect(health.headers.get('grpc-status')).toBe('0');
    expect(health.headers.get('grpc-message')).toBeNull();
  });
});
