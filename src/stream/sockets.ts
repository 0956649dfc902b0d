import { fail } from '../protocol';
import type { Subscribers } from './subscribers';

/** WebSocket upgrade: `GET …/ws?after_seq=N[&anchors_from=M]`, validated by the Worker. */
export function acceptUpgrade(subscribers: Subscribers, request: Request): Response {
  if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
    return Response.json(fail('invalid-query', 'expected a WebSocket upgrade'), { status: 426 });
  }
  const query = new URL(request.url).searchParams;
  const afterSeq = Number(query.get('after_seq') ?? '0');
  const anchorsFrom = query.has('anchors_from') ? Number(query.get('anchors_from')) : null;
  const pair = new WebSocketPair();
  subscribers.accept(pair[1], afterSeq, anchorsFrom);
  return new Response(null, { status: 101, webSocket: pair[0] });
}

/** Answers a client's Close with its code, as a Close frame may carry it. */
export function echoClose(ws: WebSocket, code: number, reason: string): void {
  try {
    // 1005/1006 are reserved (RFC 6455 §7.4.1): never sent in a Close frame.
    ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
  } catch (error) {
    console.warn('webSocketClose: close failed', error);
  }
}
