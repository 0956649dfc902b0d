-- Agent-signed Wires (issue 31): the stream log, HCS and the log archive keep a
-- Wire's `sig` ({kid, alg, value, salt?}); wire_events kept every other
-- envelope field but dropped it, so readers served from D1, and a rebuild's
-- output, lost the signature. Now kept as RFC 8785 JSON text, NULL for an
-- unsigned Wire (the API then leaves `sig` out, as the envelope does). A
-- private Wire keeps the signature as its agent sent it (salt included), like
-- its payload, which D1 holds in plaintext for authorized readers.
-- Rows projected before this migration stay NULL until a rebuild rewrites them.
ALTER TABLE wire_events ADD COLUMN sig TEXT;
