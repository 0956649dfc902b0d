import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { subscribes, urlProblem } from '../../src/kernel/webhooks/endpoint';
import { retryAfterMs, retryDelay, webhookSettings } from '../../src/kernel/webhooks/settings';
import { isSecret, newSecret, signatures } from '../../src/kernel/webhooks/sign';

describe('webhook signatures made with WebCrypto', () => {
  it('verify with the standardwebhooks package, one per secret', async () => {
    const [a, b] = [newSecret(), newSecret()];
    const body = JSON.stringify({ type: 'task:completed', data: { n: 'é ✓' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signatures([a, b], 'msg_01', timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': 'msg_01',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });

  it('makes whsec_ secrets and tells them from anything else', () => {
    expect(isSecret(newSecret())).toBe(true);
    expect(isSecret('whsec_c2hvcnQ=')).toBe(false);
    expect(isSecret(newSecret().replace('whsec_', 'sk_'))).toBe(false);
  });
});

describe('webhook settings', () => {
  it('retries on the documented schedule with ±20 % jitter, then gives up', () => {
    const settings = webhookSettings({});
    expect(settings.retryDelaysMs.map((ms) => ms / 1000)).toEqual([
      5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
    ]);
    expect(settings.timeoutMs).toBe(15_000);
    expect(retryDelay(settings, 1, () => 0)).toBe(4000);
    expect(retryDelay(settings, 1, () => 1)).toBe(6000);
    expect(retryDelay(settings, 9, () => 0.5)).toBe(86_400_000);
    expect(retryDelay(settings, 10)).toBeNull();
    const fast = webhookSettings({ WEBHOOK_RETRY_SCHEDULE: '0.1,0.5', WEBHOOK_TIMEOUT_MS: '200' });
    expect(fast).toMatchObject({
      retryDelaysMs: [100, 500],
      timeoutMs: 200,
      allowLocalHttp: false,
    });
    expect(webhookSettings({ WEBHOOK_RETRY_SCHEDULE: 'soon' }).retryDelaysMs).toHaveLength(9);
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('later', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it('takes https endpoints, plain http only to this machine when allowed', () => {
    expect(urlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9000/x', true)).toBeNull();
    expect(urlProblem('http://localhost/x', true)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9000/x', false)?.errors?.[0]?.path).toBe('url');
    expect(urlProblem('http://10.0.0.1/x', true)?.detail).toMatch(/^url: must be https/);
    expect(urlProblem('https://a:b@example.com/', false)?.detail).toMatch(/credentials/);
  });

  it('matches subscribed types exactly, by family, or all', () => {
    expect(subscribes(['gsd.task.*'], 'gsd.task.completed')).toBe(true);
    expect(subscribes(['gsd.task.*'], 'gsd.taskforce')).toBe(false);
    expect(subscribes(['review.concern'], 'review.concern')).toBe(true);
    expect(subscribes(['*'], 'anything')).toBe(true);
    expect(subscribes([], 'anything')).toBe(false);
  });
});
