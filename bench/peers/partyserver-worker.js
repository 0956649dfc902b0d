// The same peer on PartyServer, the lower layer the Agents SDK grew from:
// one Server per stream, log in its SQL, broadcast to hibernating sockets.
import { routePartykitRequest, Server } from 'partyserver';
import { appendAndBroadcast, createLog } from './stream-log.js';

export class StreamServer extends Server {
  static options = { hibernate: true };

  onStart() {
    createLog(this);
  }

  onRequest(request) {
    return appendAndBroadcast(this, request);
  }
}

export default {
  async fetch(request, env) {
    return (await routePartykitRequest(request, env)) ?? new Response('not found', { status: 404 });
  },
};
