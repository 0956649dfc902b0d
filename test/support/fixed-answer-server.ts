import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A server on 127.0.0.1 that answers every request with `body` as JSON (a
 * dishonest API, for verifiers that must not trust it); `run` gets its URL,
 * and the server is closed when it settles.
 */
export async function withFixedAnswer<T>(
  body: unknown,
  run: (url: string) => Promise<T>,
): Promise<T> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}
