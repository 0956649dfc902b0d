// A real webhook receiver for the outbox tests: an HTTP server on 127.0.0.1
// that verifies every delivery with the `standardwebhooks` package and
// answers as the test tells it (ok, fail with 500, hang, 410, 429), per
// endpoint name. Tests in workerd drive it over HTTP:
//   PUT  /control/<name>          {secrets?, mode?, script?, retryAfter?}
//   GET  /control/<name>          what it received, in order
//   POST /hooks/<name>            the webhook itself
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Answer = 'ok' | 'fail' | 'hang' | 'gone' | 'busy';

export interface Received {
  id: string;
  timestamp: string;
  signatures: string[];
  body: string;
  /** Indices into the endpoint's `secrets` whose signature verified. */
  verified: number[];
  answer: Answer;
  at: number;
}

interface Config {
  secrets: string[];
  mode: Answer;
  /** Answers used first, one per request, before `mode`. */
  script: Answer[];
  retryAfter: string;
  received: Received[];
}

const STATUS: Record<Exclude<Answer, 'hang'>, number> = {
  ok: 204,
  fail: 500,
  gone: 410,
  busy: 429,
};

export async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const configs = new Map<string, Config>();
  const hanging = new Set<ServerResponse>();
  const configOf = (name: string) => {
    let config = configs.get(name);
    if (!config) {
      config = { secrets: [], mode: 'ok', script: [], retryAfter: '1', received: [] };
      configs.set(name, config);
    }
    return config;
  };

  const server = createServer(async (req, res) => {
    const body = await text(req);
    const [, area, name = ''] = (req.url ?? '').split('/');
    const config = configOf(name);
    if (area === 'control' && req.method === 'PUT') {
      Object.assign(config, JSON.parse(body) as Partial<Config>);
      return send(res, 204);
    }
    if (area === 'control' && req.method === 'GET') {
      res.setHeader('content-type', 'application/json');
      return send(res, 200, JSON.stringify(config.received));
    }
    if (area !== 'hooks' || req.method !== 'POST') return send(res, 404);
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    const verified = config.secrets.flatMap((secret, i) => {
      try {
        new Webhook(secret).verify(body, headers);
        return [i];
      } catch {
        return [];
      }
    });
    const answer = config.script.shift() ?? config.mode;
    config.received.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signatures: headers['webhook-signature'].split(' '),
      body,
      verified,
      answer,
      at: Date.now(),
    });
    if (answer === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (answer === 'busy') res.setHeader('retry-after', config.retryAfter);
    send(res, STATUS[answer]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body?: string): void {
  res.statusCode = status;
  res.end(body);
}
