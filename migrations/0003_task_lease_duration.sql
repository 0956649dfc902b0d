-- task_run_state reducer v2: heartbeats extend a lease by the claim's own
-- duration, as the coordinator does, so the row keeps that duration. Rows
-- built by v1 lack it: `npm run rebuild -- --stale` replays that model only.
ALTER TABLE task_run_state ADD COLUMN lease_ms INTEGER;
UPDATE projection_meta SET reducer_version = 2
  WHERE model = 'task_run_state' AND NOT EXISTS (SELECT 1 FROM task_run_state);
