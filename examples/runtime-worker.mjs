#!/usr/bin/env node
import { RuntimeWorker, WirestreamClient } from 'wirestream/client'; // .local/client/index.mjs, built by npm start / npm run build
// An interactive Runtime v1 worker (seed 003) in a few lines: it spawns itself in a
// channel, waits, answers each message the channel routes to it, and completes after
// three. Run against `npm start`:
//
//   export TOKEN=…   # see README, Quick start
//   node examples/runtime-worker.mjs support w-example
//   # then, from another shell: POST /v1/channels/support/route/w-example (README, Runtime v1)
//
// It follows its own feed over WebSocket (resumed after a drop) with the SDK.
import { WebSocket } from 'ws';

const [channelId = 'support', workerId = `w-${Date.now().toString(36)}`] = process.argv.slice(2);
const client = new WirestreamClient({
  baseUrl: process.env.WIRESTREAM_URL ?? 'http://127.0.0.1:8787',
  token: process.env.TOKEN,
  WebSocket,
});

const worker = await RuntimeWorker.spawn(client, {
  workerId,
  channelId,
  spec: {
    goal: 'answer routed questions',
    toolset: ['echo'],
    mode: 'interactive',
    timeoutSeconds: 600,
  },
});
await worker.progress('waiting', 'ready for messages');
console.log(`worker ${workerId} waiting in channel ${channelId}`);

let answered = 0;
const feed = worker.onMessage(async (message) => {
  answered += 1;
  console.log(`#${message.seq} ${message.text}`);
  await worker.progress('running', `working on: ${message.text.slice(0, 200)}`);
  if (answered < 3) {
    await worker.progress('waiting', `answered ${answered}`);
    return;
  }
  await worker.complete({ summary: `answered ${answered} messages`, outcome: 'success' });
  feed.close();
  console.log('completed');
});
