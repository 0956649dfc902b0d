-- A wire_id is unique within its stream only (the stream dedups on it), so two
-- streams may both carry a client-chosen "wire_1". wire_events keyed on wire_id
-- alone kept the first and silently dropped the other stream's Wire. Now keyed
-- on (stream_id, wire_id); GET /v1/wires/{id} takes ?stream_id= to choose.
-- SQLite cannot change a primary key in place: rebuild the table.
CREATE TABLE wire_events_per_stream (
  wire_id TEXT NOT NULL,
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
  consensus_timestamp TEXT,
  PRIMARY KEY (stream_id, wire_id)
);
INSERT INTO wire_events_per_stream SELECT wire_id, stream_id, stream_seq, correlation_id,
  causation_id, type, sender, ts, payload, received_at, hcs_topic_id, hcs_sequence_number,
  consensus_timestamp FROM wire_events;
DROP TABLE wire_events;
ALTER TABLE wire_events_per_stream RENAME TO wire_events;
CREATE UNIQUE INDEX wire_events_stream_seq ON wire_events (stream_id, stream_seq);
CREATE INDEX wire_events_wire_id ON wire_events (wire_id);
CREATE INDEX wire_events_correlation ON wire_events (correlation_id);
CREATE INDEX wire_events_causation ON wire_events (causation_id);
CREATE INDEX wire_events_type ON wire_events (type);
CREATE INDEX wire_events_sender ON wire_events (sender);
-- Cursor pagination of GET /v1/wires: (received_at, wire_id, stream_id) is unique.
CREATE INDEX wire_events_received ON wire_events (received_at, wire_id, stream_id);
CREATE INDEX wire_events_hcs ON wire_events (hcs_topic_id, hcs_sequence_number);
