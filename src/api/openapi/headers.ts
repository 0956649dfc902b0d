type Json = Record<string, unknown>;
type Header = { name: string; description: string; schema: Json };

/** Every header is a string; `schema` narrows it further. */
function header(name: string, description: string, schema: Json = {}): Header {
  return { name, description, schema: { type: 'string', ...schema } };
}

/**
 * The response headers clients rely on, described once in the document's
 * `components.headers` and referred to by name from each answer.
 */
export const HEADERS: Record<string, Header> = {
  ETag: header(
    'ETag',
    'The stream\'s last `stream_seq`, quoted (`"12"`): send it back as `If-Match` to append only if nothing came in between',
  ),
  Location: header('Location', 'Where the stored Wire can be read'),
  IdempotentReplay: header(
    'Idempotent-Replay',
    '`true` when this append repeated a stored Wire (same `wire_id`, same content)',
    { enum: ['true'] },
  ),
  CacheControl: header('Cache-Control', '`no-store`'),
  Watermark: header(
    'Wirestream-Watermark',
    'Wires projected into the read models so far (read in the same snapshot)',
    { pattern: '^\\d+$' },
  ),
  WatermarkReceivedAt: header(
    'Wirestream-Watermark-Received-At',
    '`received_at` of the newest projected Wire',
    { format: 'date-time' },
  ),
  WaitFor: header(
    'Wirestream-Wait-For',
    'With `?wait_for=`: whether the Wire became visible in time',
    { enum: ['visible', 'timeout'] },
  ),
  StaleModels: header(
    'Wirestream-Stale-Models',
    'Read models not kept up to date right now (comma-separated), while a rebuild runs or after one failed',
  ),
  RebuildId: header('Wirestream-Rebuild-Id', 'The rebuild these lines follow'),
  RetryAfter: header('Retry-After', 'Seconds until the sender may append again', {
    pattern: '^\\d+$',
  }),
  WwwAuthenticate: header('WWW-Authenticate', '`Bearer realm="wirestream"`'),
};
