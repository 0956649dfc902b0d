-- Seed 002 (run documents with a single writer authority): one row per run,
-- folded from its `run:<run_id>` stream with the run decider's own rules.
-- Derived like every read model: `npm run rebuild` replays it from HCS.
CREATE TABLE IF NOT EXISTS writer_runs (
  run_id TEXT PRIMARY KEY,
  stream_id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  writer TEXT,
  conductors TEXT NOT NULL,
  workers TEXT NOT NULL,
  revision INTEGER NOT NULL,
  open_proposals INTEGER NOT NULL,
  proposals TEXT NOT NULL,
  revisions TEXT NOT NULL,
  document TEXT NOT NULL,
  messages INTEGER NOT NULL,
  rejects INTEGER NOT NULL,
  pending TEXT,
  last_event_at TEXT NOT NULL,
  reducer_version INTEGER NOT NULL,
  last_seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS writer_runs_writer ON writer_runs (writer);
-- Live projection writes a model's rows only while its meta row says 'ready'.
INSERT OR IGNORE INTO projection_meta (model, reducer_version, status) VALUES ('writer_runs', 1, 'ready');
