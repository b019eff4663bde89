-- 0007: listing a thread's runs reads what it returns (issue 28).
--
-- outcome: a run's last event as a listing reads it, without the final state
--   (engine/checkpoint/_runs.py, RunRecord); NULL in rows written before, whose
--   listing reads finished in its place.
-- runs_listing: the listing's order within a thread, (started_at, run_id), so
--   that a page of `limit` runs, from the newest or after a given run, reads
--   `limit` rows; it replaces runs_thread, whose order ended at started_at.

ALTER TABLE runs ADD COLUMN outcome bytea;
DROP INDEX runs_thread;
CREATE INDEX runs_listing ON runs (thread_id, started_at, run_id);
