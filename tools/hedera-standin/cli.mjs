#!/usr/bin/env node
// @ts-check
// `node tools/hedera-standin/cli.mjs [--port 5551] [--data .local/hedera.json]`
import { parseArgs } from 'node:util';
import { startStandin } from './index.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    data: { type: 'string' },
  },
});
const standin = await startStandin({
  port: Number(values.port),
  host: values.host,
  dataFile: values.data,
});
console.log(
  `hedera stand-in on ${standin.url} (operator ${standin.ledger.operator.accountId}, node 0.0.3${values.data ? `, ledger ${values.data}` : ', in memory'})`,
);
const stop = () => standin.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
