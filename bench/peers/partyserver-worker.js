// The same peer on PartyServer, the lower layer the Agents SDK grew from:
// one Server per stream, log in its SQL, broadcast to hibernating sockets.
import { routePartykitRequest, Server } from 'partyserver';

export class StreamServer extends Server {
  static options = { hibernate: true };

  onStart() {
    this
      .sql`CREATE TABLE IF NOT EXISTS wires (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`;
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
    return (await routePartykitRequest(request, env)) ?? new Response('not found', { status: 404 });
  },
};
