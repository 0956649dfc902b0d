import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { RuntimeChannel, RuntimeWorker, WirestreamClient } from '../../src/client';
import { tokenFor } from './helpers/auth';
import { uid } from './helpers/coordination';
import { eventually } from './helpers/runtime';

async function client() {
  return new WirestreamClient({
    baseUrl: 'https://ws.test',
    token: await tokenFor({ sub: 'agent:runtime-sdk', scopes: ['append', 'read'] }),
    fetch: (input, init) => SELF.fetch(input, init),
  });
}

describe('the Runtime v1 SDK helpers', () => {
  it('lets an agent be a worker in a few lines: spawn, wait, take a routed message, complete', async () => {
    const c = await client();
    const channel = await RuntimeChannel.open(
      c,
      uid('sdkch'),
      { rules: [], default: { action: 'respond' } },
      4000,
    );
    const worker = await RuntimeWorker.spawn(c, {
      workerId: uid('sdkw'),
      channelId: channel.channelId,
      spec: { goal: 'answer questions', toolset: ['search'], mode: 'interactive' },
    });
    await worker.progress('waiting', 'ready');
    await eventually(
      async () => ((await channel.state()).workers as Record<string, unknown>)[worker.workerId],
    );
    await channel.route(worker.workerId, 'what changed in v2?');
    const [message] = await worker.messages();
    expect(message).toMatchObject({ text: 'what changed in v2?', role: 'user' });
    expect((await worker.state()).status).toBe('running');
    await worker.complete({ summary: 'v2 renamed the API', outcome: 'success' }, [], {
      input: 50,
      output: 10,
    });
    expect((await worker.state()).status).toBe('completed');
    await expect(worker.progress('running')).rejects.toMatchObject({ status: 409 });
  });
});
