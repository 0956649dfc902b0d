// The peer: the same append-and-broadcast workload written the way a Workers
// developer would with the Cloudflare Agents SDK — an Agent per stream holding
// the log in its SQL and broadcasting each accepted Wire to its (hibernating)
// WebSocket connections. No schema validation or idempotency: it does less
// work per append than Wirestream, which BENCHMARKS.md says.
import { Agent, routeAgentRequest } from 'agents';

export class StreamAgent extends Agent {
  static options = { hibernate: true };

  onStart() {
    this
      .sql`CREATE TABLE IF NOT EXISTS wires (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`;
  }

  // Subscribers only want Wires, not the SDK's identity/state frames.
  shouldSendProtocolMessages() {
    return false;
  }

  async onRequest(request) {
    if (request.method !== 'POST') return new Response('method not allowed', { status: 405 });
    const wire = await request.json();
    const body = JSON.stringify(wire);
    const [row] = this.sql`INSERT INTO wires (body) VALUES (${body}) RETURNING seq`;
    const stored = { ...wire, stream_seq: row.seq };
    this.broadcast(JSON.stringify({ kind: 'wires', wires: [stored] }));
    return Response.json({ seq: row.seq }, { status: 201 });
  }
}

export default {
  async fetch(request, env) {
    return (await routeAgentRequest(request, env)) ?? new Response('not found', { status: 404 });
  },
};
