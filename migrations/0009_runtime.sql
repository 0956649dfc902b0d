-- Runtime v1 (seed 003, src/modules/runtime/): the PRD's six tables (FR-9),
-- prefixed `runtime_` so they sit beside seed 000's tables (`task_run_state`…)
-- and any other module's without a clash: channels → runtime_channels, tasks →
-- runtime_tasks, events → runtime_events (a view of wire_events), artifacts →
-- runtime_artifacts, memory_bulletins → runtime_memory_bulletins, token_usage →
-- runtime_token_usage; plus runtime_memory (memory_save) and its FTS5 index.
-- Derived from the Wires like every read model: a rebuild from HCS refills them.

CREATE TABLE IF NOT EXISTS runtime_channels (
  stream_id TEXT PRIMARY KEY,
  channel_id TEXT NOT NULL,
  status TEXT NOT NULL,
  context_budget INTEGER NOT NULL,
  live_tokens INTEGER NOT NULL,
  utilization REAL NOT NULL,
  level INTEGER NOT NULL,
  messages INTEGER NOT NULL,
  active_workers INTEGER NOT NULL,
  open_branches INTEGER NOT NULL,
  threshold_hits INTEGER NOT NULL,
  summaries_applied INTEGER NOT NULL,
  last_bulletin_id TEXT,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runtime_channels_status ON runtime_channels (status);

CREATE TABLE IF NOT EXISTS runtime_tasks (
  stream_id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  channel_id TEXT,
  branch_id TEXT,
  status TEXT NOT NULL,
  mode TEXT,
  goal TEXT,
  toolset TEXT NOT NULL,
  result TEXT,
  failure_reason TEXT,
  artifact_refs TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runtime_tasks_channel ON runtime_tasks (channel_id, kind, status);
CREATE INDEX IF NOT EXISTS runtime_tasks_status ON runtime_tasks (kind, status, updated_at);

CREATE TABLE IF NOT EXISTS runtime_artifacts (
  stream_id TEXT PRIMARY KEY,
  artifact_id TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  name TEXT,
  channel_id TEXT,
  uploaded_by TEXT NOT NULL,
  stored_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS runtime_memory_bulletins (
  stream_id TEXT PRIMARY KEY,
  bulletin_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  window_from TEXT NOT NULL,
  window_to TEXT NOT NULL,
  counts TEXT NOT NULL,
  tokens INTEGER NOT NULL,
  generated_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runtime_memory_bulletins_window ON runtime_memory_bulletins (window_to);

CREATE TABLE IF NOT EXISTS runtime_token_usage (
  stream_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  channel_id TEXT,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  total_tokens INTEGER NOT NULL,
  reports INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS runtime_memory (
  stream_id TEXT PRIMARY KEY,
  memory_id TEXT NOT NULL,
  text TEXT NOT NULL,
  tags TEXT NOT NULL,
  branch_id TEXT,
  channel_id TEXT,
  saved_by TEXT NOT NULL,
  saved_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS runtime_memory_id ON runtime_memory (memory_id);

-- memory_recall: full-text search over runtime_memory, kept in step by triggers
-- (the projector upserts rows: insert, or update in place).
CREATE VIRTUAL TABLE IF NOT EXISTS runtime_memory_fts USING fts5(memory_id UNINDEXED, text, tags);
CREATE TRIGGER IF NOT EXISTS runtime_memory_ai AFTER INSERT ON runtime_memory BEGIN
  INSERT INTO runtime_memory_fts (memory_id, text, tags) VALUES (new.memory_id, new.text, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS runtime_memory_au AFTER UPDATE ON runtime_memory BEGIN
  DELETE FROM runtime_memory_fts WHERE memory_id = old.memory_id;
  INSERT INTO runtime_memory_fts (memory_id, text, tags) VALUES (new.memory_id, new.text, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS runtime_memory_ad AFTER DELETE ON runtime_memory BEGIN
  DELETE FROM runtime_memory_fts WHERE memory_id = old.memory_id;
END;

-- The PRD's `events`: every runtime event, in Envelope v1 terms, from wire_events.
CREATE VIEW IF NOT EXISTS runtime_events AS
  SELECT
    wire_id AS message_id,
    substr(type, 9) AS message_type,
    stream_id,
    stream_seq,
    ts,
    correlation_id AS trace_id,
    json_extract(payload, '$."$envelope".channelId') AS channel_id,
    json_extract(payload, '$."$envelope".branchId') AS branch_id,
    json_extract(payload, '$."$envelope".workerId') AS worker_id,
    sender,
    payload,
    received_at
  FROM wire_events
  WHERE type LIKE 'runtime.%';

INSERT OR IGNORE INTO projection_meta (model, reducer_version, status) VALUES
  ('runtime_channels', 1, 'ready'),
  ('runtime_tasks', 1, 'ready'),
  ('runtime_artifacts', 1, 'ready'),
  ('runtime_memory', 1, 'ready'),
  ('runtime_memory_bulletins', 1, 'ready'),
  ('runtime_token_usage', 1, 'ready');
