// The ceiling: the least a Worker + Durable Object can do per append on this
// runtime. The Worker forwards the body to one DO per stream, which only runs
// `INSERT … RETURNING seq` and answers. Two transports are measured because
// Worker→DO RPC and `stub.fetch` behave differently under saturation (the
// scenario-1 rows of BENCHMARKS.md). `/rpc-broadcast/` adds a hand-written
// broadcast to hibernating WebSockets: the floor for append-and-broadcast.
import { DurableObject } from 'cloudflare:workers';

export class Ceiling extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)',
    );
  }

  append(body) {
    return this.ctx.storage.sql.exec('INSERT INTO log (body) VALUES (?) RETURNING seq', body).one()
      .seq;
  }

  appendAndBroadcast(body) {
    const seq = this.append(body);
    const frame = `{"kind":"wires","wires":[{"stream_seq":${seq},"body":${body}}]}`;
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(frame);
      } catch {
        // A closing socket; the runtime will call webSocketClose.
      }
    }
    return seq;
  }

  async fetch(request) {
    if (request.headers.get('Upgrade') === 'websocket') {
      const pair = new WebSocketPair();
      this.ctx.acceptWebSocket(pair[1]);
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    const seq = this.append(await request.text());
    return Response.json({ seq }, { status: 201 });
  }

  webSocketMessage() {}

  webSocketClose(ws, code) {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code);
    } catch {
      // Already closed.
    }
  }
}

export default {
  async fetch(request, env) {
    const match = /^\/(rpc|fetch|rpc-broadcast|ws)\/([^/]+)$/.exec(new URL(request.url).pathname);
    if (!match) return new Response('not found', { status: 404 });
    const stub = env.CEILING.get(env.CEILING.idFromName(match[2]));
    switch (match[1]) {
      case 'rpc':
        return Response.json({ seq: await stub.append(await request.text()) }, { status: 201 });
      case 'rpc-broadcast':
        return Response.json(
          { seq: await stub.appendAndBroadcast(await request.text()) },
          { status: 201 },
        );
      default:
        return stub.fetch(request);
    }
  },
};
