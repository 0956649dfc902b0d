// Main-thread handle on the subscriber worker thread.
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const THREAD = path.join(import.meta.dirname, 'subscriber-thread.mjs');

/**
 * Opens `count` WebSockets to `wsPath` in a worker thread. Resolves when all
 * are connected (and, for Wirestream, caught up).
 */
export async function subscribe({
  origin,
  wsPath,
  count,
  ack,
  ackPolicy = {},
  headers = {},
  anchors = false,
}) {
  const worker = new Worker(THREAD, {
    workerData: {
      origin: origin.host,
      paths: Array.from({ length: count }, () => wsPath),
      ack,
      headers,
      anchors,
      ...ackPolicy,
    },
  });
  const messages = [];
  let waiter = null;
  worker.on('message', (msg) => {
    if (waiter) {
      const w = waiter;
      waiter = null;
      w(msg);
    } else messages.push(msg);
  });
  const next = () =>
    messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => (waiter = r));
  const ready = await next();
  return {
    connected: ready.ready,
    failed: ready.failed,
    /** Waits until seqs 1..upTo reached every subscriber (or timeout); returns the record. */
    async wait(upTo, timeoutMs) {
      worker.postMessage({ cmd: 'wait', upTo, expected: ready.ready, timeoutMs });
      return next();
    },
    async stop() {
      worker.postMessage({ cmd: 'stop' });
      await worker.terminate();
    },
  };
}
