// The workload both peers run, written once: the stream's log in the
// object's SQL, each accepted Wire broadcast to its sockets. `server` is an
// Agent or a PartyServer Server: both offer the same `sql` tag and
// `broadcast`.

/** Creates the log table (idempotent): call from `onStart`. */
export function createLog(server) {
  server.sql`CREATE TABLE IF NOT EXISTS wires (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`;
}

/** `POST`: stores the Wire, broadcasts it as a `wires` frame, answers its seq. */
export async function appendAndBroadcast(server, request) {
  if (request.method !== 'POST') return new Response('method not allowed', { status: 405 });
  const wire = await request.json();
  const body = JSON.stringify(wire);
  const [row] = server.sql`INSERT INTO wires (body) VALUES (${body}) RETURNING seq`;
  const stored = { ...wire, stream_seq: row.seq };
  server.broadcast(JSON.stringify({ kind: 'wires', wires: [stored] }));
  return Response.json({ seq: row.seq }, { status: 201 });
}
