// The peer: the same append-and-broadcast workload written the way a Workers
// developer would with the Cloudflare Agents SDK — an Agent per stream holding
// the log in its SQL and broadcasting each accepted Wire to its (hibernating)
// WebSocket connections. No schema validation or idempotency: it does less
// work per append than Wirestream, which BENCHMARKS.md says.
import { Agent, routeAgentRequest } from 'agents';
import { appendAndBroadcast, createLog } from './stream-log.js';

export class StreamAgent extends Agent {
  static options = { hibernate: true };

  onStart() {
    createLog(this);
  }

  // Subscribers only want Wires, not the SDK's identity/state frames.
  shouldSendProtocolMessages() {
    return false;
  }

  onRequest(request) {
    return appendAndBroadcast(this, request);
  }
}

export default {
  async fetch(request, env) {
    return (await routeAgentRequest(request, env)) ?? new Response('not found', { status: 404 });
  },
};
