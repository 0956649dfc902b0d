/**
 * Where a request may carry its credential. Long-lived tokens travel only in
 * headers; the query string accepts nothing but a short-lived ticket, so URLs
 * that end up in logs never hold a reusable secret.
 */
export const WS_SUBPROTOCOL = 'wirestream';
const BEARER_SUBPROTOCOL = `${WS_SUBPROTOCOL}.bearer.`;

export type Credential =
  | { kind: 'bearer'; token: string }
  | { kind: 'ticket'; token: string }
  | { kind: 'subprotocol'; token: string }
  | { kind: 'none' }
  | { kind: 'malformed'; detail: string };

/** WebSocket upgrade paths: the only places tickets and subprotocol tokens count. */
export function isWebSocketPath(path: string): boolean {
  return /^\/v1\/(streams|roles)\/[^/]+\/ws$/.test(path);
}

/** `path` is the request's pathname; `url` its full URL, parsed only for a WebSocket ticket. */
export function credentialOf(request: Request, path: string, url: string): Credential {
  const authorization = request.headers.get('Authorization');
  if (authorization !== null) {
    const match = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization.trim());
    if (!match?.[1]) {
      return { kind: 'malformed', detail: 'Authorization must be "Bearer <token>"' };
    }
    return { kind: 'bearer', token: match[1] };
  }
  if (!isWebSocketPath(path)) return { kind: 'none' };
  const ticket = new URL(url).searchParams.get('ticket');
  if (ticket !== null) return { kind: 'ticket', token: ticket };
  const offered = (request.headers.get('Sec-WebSocket-Protocol') ?? '')
    .split(',')
    .map((p) => p.trim());
  const bearer = offered.find((p) => p.startsWith(BEARER_SUBPROTOCOL));
  if (bearer) return { kind: 'subprotocol', token: bearer.slice(BEARER_SUBPROTOCOL.length) };
  return { kind: 'none' };
}
