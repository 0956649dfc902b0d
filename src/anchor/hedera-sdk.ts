/**
 * The parts of `@hashgraph/sdk` that the HCS adapter uses, imported module by
 * module from the SDK's browser-ready ESM files (`lib/`).
 *
 * Why not `import … from '@hashgraph/sdk'`: the package index re-exports every
 * transaction and query type (tokens, contracts, files, schedules, Ethereum…)
 * and declares `"sideEffects": true`, so a bundler keeps all of them. Going
 * through the index cost ~35 KiB of the Worker's gzip upload (~226 KiB of
 * code). The package's `exports` map only exposes `.`, so the deep files are
 * named by path; their `.d.ts` siblings give the same types as the index.
 *
 * These modules register nothing that the topic path needs from elsewhere:
 * AccountId, PrivateKey and PublicKey fill the SDK's constructor cache
 * themselves, and the receipt and record queries decode their own replies.
 * Still, the workerd anchor tests drive every class here against the stand-in.
 *
 * `Client` is the SDK's WebClient (gRPC-web over fetch): the Node client calls
 * `http2.connect`, which workerd does not implement.
 */

import protobuf from 'protobufjs/minimal.js';

export { default as AccountId } from '../../node_modules/@hashgraph/sdk/lib/account/AccountId.js';
export { default as Client } from '../../node_modules/@hashgraph/sdk/lib/client/WebClient.js';
export { default as GrpcServiceError } from '../../node_modules/@hashgraph/sdk/lib/grpc/GrpcServiceError.js';
export { default as GrpcStatus } from '../../node_modules/@hashgraph/sdk/lib/grpc/GrpcStatus.js';
export { default as Hbar } from '../../node_modules/@hashgraph/sdk/lib/Hbar.js';
export { default as MaxAttemptsOrTimeoutError } from '../../node_modules/@hashgraph/sdk/lib/MaxAttemptsOrTimeoutError.js';
export { default as PrecheckStatusError } from '../../node_modules/@hashgraph/sdk/lib/PrecheckStatusError.js';
export { default as PrivateKey } from '../../node_modules/@hashgraph/sdk/lib/PrivateKey.js';
export { default as Status } from '../../node_modules/@hashgraph/sdk/lib/Status.js';
export { default as Timestamp } from '../../node_modules/@hashgraph/sdk/lib/Timestamp.js';
export { default as TopicCreateTransaction } from '../../node_modules/@hashgraph/sdk/lib/topic/TopicCreateTransaction.js';
export { default as TopicId } from '../../node_modules/@hashgraph/sdk/lib/topic/TopicId.js';
export { default as TopicMessageSubmitTransaction } from '../../node_modules/@hashgraph/sdk/lib/topic/TopicMessageSubmitTransaction.js';
export { default as TransactionId } from '../../node_modules/@hashgraph/sdk/lib/transaction/TransactionId.js';
export { default as TransactionReceiptQuery } from '../../node_modules/@hashgraph/sdk/lib/transaction/TransactionReceiptQuery.js';
export { default as TransactionRecordQuery } from '../../node_modules/@hashgraph/sdk/lib/transaction/TransactionRecordQuery.js';
export { default as TransactionResponse } from '../../node_modules/@hashgraph/sdk/lib/transaction/TransactionResponse.js';

/**
 * The SDK encodes with protobufjs (`@hiero-ledger/proto`), which writes into
 * node Buffers when `require('buffer')` works. In a wrangler bundle it does
 * not, so transactions are written to plain Uint8Arrays; under the vitest
 * pool it does, and workerd's `Buffer#utf8Write(string, offset)` refuses the
 * call protobufjs makes for strings of 40 characters or more (a topic memo
 * of a longer topic name: "The value of "length" is out of range"). Plain
 * arrays everywhere, so tests run the code production runs.
 */
(protobuf.util as { Buffer: unknown }).Buffer = null;
protobuf.configure();
