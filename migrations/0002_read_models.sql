-- Read models (seed 000, "Reducers And Read Models"). Every table here is
-- derived: `npm run rebuild` drops it and replays the HCS topics. Each row is
-- owned by one stream and records `last_seq`, the stream_seq of the last Wire
-- folded into it, so re-applying a Wire is a no-op and writes never regress.

CREATE TABLE IF NOT EXISTS stream_state (
  stream_id TEXT PRIMARY KEY,
  stream_type TEXT NOT NULL,
  status TEXT NOT NULL,
  last_wire_id TEXT NOT NULL,
  last_event_type TEXT NOT NULL,
  last_event_at TEXT NOT NULL,
  first_event_at TEXT NOT NULL,
  correlation_id TEXT,
  wire_count INTEGER NOT NULL,
  state TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS stream_state_type_status ON stream_state (stream_type, status);
CREATE INDEX IF NOT EXISTS stream_state_correlation ON stream_state (correlation_id);

CREATE TABLE IF NOT EXISTS task_run_state (
  stream_id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  role TEXT,
  status TEXT NOT NULL,
  claimed_by TEXT,
  lease_expires_at TEXT,
  capacity_units_reserved INTEGER,
  last_heartbeat_at TEXT,
  plan_ref TEXT,
  blocker TEXT,
  output_ref TEXT,
  verification_status TEXT,
  artifacts TEXT NOT NULL,
  contracts TEXT NOT NULL,
  concerns INTEGER NOT NULL,
  correlation_id TEXT,
  last_event_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS task_run_state_task_attempt ON task_run_state (task_id, attempt);
CREATE INDEX IF NOT EXISTS task_run_state_status ON task_run_state (status);
CREATE INDEX IF NOT EXISTS task_run_state_role_status ON task_run_state (role, status);
CREATE INDEX IF NOT EXISTS task_run_state_claimed_by ON task_run_state (claimed_by);

CREATE TABLE IF NOT EXISTS agent_runtime_state (
  agent_id TEXT PRIMARY KEY,
  stream_id TEXT NOT NULL UNIQUE,
  role TEXT,
  status TEXT NOT NULL,
  available_units INTEGER,
  max_units INTEGER,
  reserved_units INTEGER NOT NULL,
  reservations TEXT NOT NULL,
  skills TEXT NOT NULL,
  active_leases INTEGER NOT NULL,
  leases TEXT NOT NULL,
  last_heartbeat_at TEXT,
  last_seen_at TEXT,
  last_event_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_runtime_state_role_status ON agent_runtime_state (role, status);

-- One row per read model: the reducer version its rows were built with and
-- whether a rebuild is running (live projection leaves it alone meanwhile).
-- The row `wire_events` carries the watermark: Wires projected so far.
CREATE TABLE IF NOT EXISTS projection_meta (
  model TEXT PRIMARY KEY,
  reducer_version INTEGER NOT NULL,
  status TEXT NOT NULL,
  watermark INTEGER NOT NULL DEFAULT 0,
  last_received_at TEXT,
  updated_at TEXT
);
INSERT OR IGNORE INTO projection_meta (model, reducer_version, status) VALUES
  ('wire_events', 1, 'ready'),
  ('stream_state', 1, 'ready'),
  ('task_run_state', 1, 'ready'),
  ('agent_runtime_state', 1, 'ready');

-- HCS topics seen in anchors: the list a rebuild replays (kept across rebuilds).
CREATE TABLE IF NOT EXISTS projection_topics (
  topic_id TEXT PRIMARY KEY
);

-- Cursor pagination of GET /v1/wires and its time-range filter.
CREATE INDEX IF NOT EXISTS wire_events_received ON wire_events (received_at, wire_id);
CREATE INDEX IF NOT EXISTS wire_events_hcs ON wire_events (hcs_topic_id, hcs_sequence_number);
