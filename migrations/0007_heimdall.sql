-- Seed 001 (Heimdall): one row per workspace:<ws> and surfaces:<ws> stream,
-- holding the decider's folded state as JSON (src/modules/heimdall/read-models).
-- Derived like every read model: `npm run rebuild` replays it from HCS.
CREATE TABLE IF NOT EXISTS heimdall_state (
  stream_id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  wire_count INTEGER NOT NULL,
  last_event_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS heimdall_state_workspace ON heimdall_state (workspace, kind);
INSERT OR IGNORE INTO projection_meta (model, reducer_version, status) VALUES
  ('heimdall_state', 1, 'ready');
