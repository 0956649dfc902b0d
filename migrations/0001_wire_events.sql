-- Raw event table (seed 000, "Reducers And Read Models"). Derived from HCS:
-- every row can be rebuilt by replaying the topics.
CREATE TABLE IF NOT EXISTS wire_events (
  wire_id TEXT PRIMARY KEY,
  stream_id TEXT NOT NULL,
  stream_seq INTEGER NOT NULL,
  correlation_id TEXT,
  causation_id TEXT,
  type TEXT NOT NULL,
  sender TEXT NOT NULL,
  ts TEXT NOT NULL,
  payload TEXT NOT NULL,
  received_at TEXT NOT NULL,
  hcs_topic_id TEXT,
  hcs_sequence_number INTEGER,
  consensus_timestamp TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS wire_events_stream_seq ON wire_events (stream_id, stream_seq);
CREATE INDEX IF NOT EXISTS wire_events_correlation ON wire_events (correlation_id);
CREATE INDEX IF NOT EXISTS wire_events_causation ON wire_events (causation_id);
CREATE INDEX IF NOT EXISTS wire_events_type ON wire_events (type);
CREATE INDEX IF NOT EXISTS wire_events_sender ON wire_events (sender);
