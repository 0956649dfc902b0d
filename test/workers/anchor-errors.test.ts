// What an operator reads when anchoring cannot proceed: `GET /v1/topics`
// shows each topic's last error, so it must name the cause.
import { describe, expect, it } from 'vitest';
import { AnchorError } from '../../src/anchor';
import { hederaConfig } from '../../src/anchor/config';
import { HcsAnchor } from '../../src/anchor/hcs-anchor';
import { faults, requestsOf, standinUrl } from './helpers/anchoring';

async function failureOf(run: Promise<unknown>): Promise<AnchorError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AnchorError);
  return error as AnchorError;
}

describe('anchoring errors', { timeout: 40_000 }, () => {
  it('says no consensus node is available while the SDK backs off the only one', async () => {
    // Its own client, so the node's backoff touches no other test's anchoring.
    const anchor = new HcsAnchor(hederaConfig({ HEDERA_LOCAL_URL: standinUrl() }));
    const [createId = ''] = await anchor.transactionIds(0);
    const topicId = await anchor.createTopic('wirestream errors', createId);
    const message = new TextEncoder().encode('{"wire":"1.1"}');
    const submit = async () =>
      anchor.submit({ topicId, message, transactionIds: await anchor.transactionIds(14) });

    await faults({ topicId, unavailable: true });
    try {
      // The node answers UNAVAILABLE until the SDK gives up on it...
      const first = await failureOf(submit());
      expect(first.kind).toBe('retry');
      // ...and while it is shunned, the next submit fails without a request.
      const before = (await requestsOf(topicId)).submit;
      const second = await failureOf(submit());
      expect(second.kind).toBe('retry');
      expect((await requestsOf(topicId)).submit).toBe(before);
      for (const error of [first, second]) {
        expect(error.message).toMatch(/node/i);
        expect(error.message).not.toMatch(/frozen/);
      }
    } finally {
      await faults({ topicId });
    }
    // Once the backoff (at most 4 s) is over, the same anchor submits again.
    const deadline = Date.now() + 10_000;
    let sent: unknown = null;
    while (sent === null && Date.now() < deadline) {
      sent = await submit().catch(() => null);
      if (sent === null) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(sent).toMatchObject({ transactionId: expect.any(String) });
  });
});
