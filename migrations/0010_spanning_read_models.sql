-- Read models whose rows span streams (src/projection/model-sql.ts): each
-- stream's own row of such a model (`part`, JSON) with its `last_seq`, and
-- what it adds to which shared row. The model's table holds the sums,
-- recomputed from these parts in the transaction that changes them, so a
-- total is exact after any redelivery, replay or rebuild.
CREATE TABLE IF NOT EXISTS read_model_parts (
  model TEXT NOT NULL,
  stream_id TEXT NOT NULL,
  share_key TEXT,
  share TEXT,
  part TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  PRIMARY KEY (model, stream_id)
);
CREATE INDEX IF NOT EXISTS read_model_parts_share ON read_model_parts (model, share_key);

-- The keys one write touches, between two statements of its transaction (empty otherwise).
CREATE TABLE IF NOT EXISTS read_model_touched (
  model TEXT NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (model, key)
);

-- Seed 000's project_progress: per project, its task attempts by status.
CREATE TABLE IF NOT EXISTS project_progress (
  project_id TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL,
  pending INTEGER NOT NULL,
  available INTEGER NOT NULL,
  claimed INTEGER NOT NULL,
  started INTEGER NOT NULL,
  complete INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  released INTEGER NOT NULL,
  expired INTEGER NOT NULL,
  revoked INTEGER NOT NULL
);

-- A deployment with Wires already projected gets version 0: stale, so
-- `npm run rebuild -- --stale` builds the new model from its history.
INSERT OR IGNORE INTO projection_meta (model, reducer_version, status)
  SELECT 'project_progress', CASE WHEN EXISTS (SELECT 1 FROM wire_events) THEN 0 ELSE 1 END, 'ready';
