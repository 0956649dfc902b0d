import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server that can cut every open connection at
 * once: what a client sees when a load balancer or a deploy drops it.
 */
export interface FlakyProxy {
  readonly url: string;
  /** Destroys every connection through the proxy; returns how many. */
  dropAll(): number;
  close(): Promise<void>;
}

export function startFlakyProxy(targetPort: number): Promise<FlakyProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        dropAll: () => {
          const n = pairs.size;
          for (const [a, b] of pairs) {
            a.destroy();
            b.destroy();
          }
          pairs.clear();
          return n;
        },
        close: () =>
          new Promise((done) => {
            for (const [a, b] of pairs) {
              a.destroy();
              b.destroy();
            }
            server.close(() => done());
          }),
      });
    });
  });
}
