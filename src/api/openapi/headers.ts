type Json = Record<string, unknown>;

/**
 * The response headers clients rely on, described once in the document's
 * `components.headers` and referred to by name from each answer.
 */
export const HEADERS: Record<string, { name: string; description: string; schema: Json }> = {
  ETag: {
    name: 'ETag',
    description:
      'The stream\'s last `stream_seq`, quoted (`"12"`): send it back as `If-Match` to append only if nothing came in between',
    schema: { type: 'string' },
  },
  Location: {
    name: 'Location',
    description: 'Where the stored Wire can be read',
    schema: { type: 'string' },
  },
  IdempotentReplay: {
    name: 'Idempotent-Replay',
    description: '`true` when this append repeated a stored Wire (same `wire_id`, same content)',
    schema: { type: 'string', enum: ['true'] },
  },
  CacheControl: { name: 'Cache-Control', description: '`no-store`', schema: { type: 'string' } },
  Watermark: {
    name: 'Wirestream-Watermark',
    description: 'Wires projected into the read models so far (read in the same snapshot)',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  WatermarkReceivedAt: {
    name: 'Wirestream-Watermark-Received-At',
    description: '`received_at` of the newest projected Wire',
    schema: { type: 'string', format: 'date-time' },
  },
  WaitFor: {
    name: 'Wirestream-Wait-For',
    description: 'With `?wait_for=`: whether the Wire became visible in time',
    schema: { type: 'string', enum: ['visible', 'timeout'] },
  },
  StaleModels: {
    name: 'Wirestream-Stale-Models',
    description:
      'Read models not kept up to date right now (comma-separated), while a rebuild runs or after one failed',
    schema: { type: 'string' },
  },
  RebuildId: {
    name: 'Wirestream-Rebuild-Id',
    description: 'The rebuild these lines follow',
    schema: { type: 'string' },
  },
  RetryAfter: {
    name: 'Retry-After',
    description: 'Seconds until the sender may append again',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  WwwAuthenticate: {
    name: 'WWW-Authenticate',
    description: '`Bearer realm="wirestream"`',
    schema: { type: 'string' },
  },
};
