#!/usr/bin/env node
// `npm run hedera:topics -- --network testnet`: creates the HCS topics the
// coordinator writes to on a public network and prints the HEDERA_TOPICS value
// to configure (on `local` the Worker creates its topics itself).
//
//   HEDERA_OPERATOR_ID=0.0.1234 HEDERA_OPERATOR_KEY=302e… \
//     npm run hedera:topics -- --network testnet [--names default,roles.developer,project.kv]
//
// Then: npx wrangler secret put HEDERA_OPERATOR_KEY (and _ID), and set
// HEDERA_NETWORK and HEDERA_TOPICS (the printed JSON) in wrangler.toml [vars].
// Topics are created without a submit key: agents on the HCS-first path write
// to them directly and the listener validates every Wire it ingests.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { commandLine } from './lib/command-line.mjs';

const { values } = commandLine(
  {
    options: {
      network: { type: 'string', default: process.env.HEDERA_NETWORK ?? 'local' },
      names: { type: 'string', default: 'default' },
      'local-url': {
        type: 'string',
        default: process.env.HEDERA_LOCAL_URL ?? 'http://127.0.0.1:5551',
      },
    },
  },
  'usage: npm run hedera:topics -- [--network local|testnet|mainnet|previewnet] [--names a,b] [--local-url URL]',
);
const network = values.network;
if (!['local', 'testnet', 'mainnet', 'previewnet'].includes(network)) {
  console.error(`--network must be local, testnet, mainnet or previewnet, got "${network}"`);
  process.exit(2);
}

// The SDK's gRPC-web build, as the Worker uses it (it expects a browser global).
globalThis.window ??= globalThis;
const ROOT = path.resolve(import.meta.dirname, '..');
const sdk = await import(
  pathToFileURL(path.join(ROOT, 'node_modules/@hashgraph/sdk/lib/browser.js')).href
);
const { Client, PrivateKey, TopicCreateTransaction } = sdk;

let operatorId = process.env.HEDERA_OPERATOR_ID;
let operatorKey = process.env.HEDERA_OPERATOR_KEY;
let client;
if (network === 'local') {
  const info = await (await fetch(`${values['local-url']}/__standin/info`)).json();
  operatorId ??= info.operatorId;
  operatorKey ??= info.operatorKey;
  const host = info.grpcUrl.replace(/^https?:\/\//, '').replace(/\/$/, '');
  client = new Client({ network: { [host]: info.nodeAccountId }, scheduleNetworkUpdate: false });
} else {
  client = new Client({ network, scheduleNetworkUpdate: false });
}
if (!operatorId || !operatorKey) {
  console.error('set HEDERA_OPERATOR_ID and HEDERA_OPERATOR_KEY (DER hex) for a public network');
  process.exit(2);
}
client.setOperator(operatorId, PrivateKey.fromStringDer(operatorKey));

const topics = {};
for (const name of values.names
  .split(',')
  .map((n) => n.trim())
  .filter(Boolean)) {
  const response = await new TopicCreateTransaction()
    .setTopicMemo(`wirestream ${name}`)
    .execute(client);
  const receipt = await response.getReceipt(client);
  topics[name] = receipt.topicId.toString();
  console.error(`created ${name}: ${topics[name]}`);
}
client.close();
console.log(`HEDERA_TOPICS = '${JSON.stringify(topics)}'`);
