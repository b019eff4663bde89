-- 0006: listing a thread's runs reads what it returns (issue 28).
--
-- outcome: a run's last event as a listing reads it, without the final state
--   (engine/checkpoint/_runs.py, RunRecord); NULL in rows written before, whose
--   listing reads finished in its place.
-- runs_listing: the listing's order within a thread, (started_at, run_id), so
--   that a page of `limit` runs, from the newest or after a given run, reads
--   `limit` rows; it replaces runs_thread, whose order ended at started_at.
-- The table is rebuilt to put request and finished (the call as sent, and the
-- last event with the final state: the large values) after every other column.
-- SQLite keeps a row's columns in order and a large value mostly on overflow
-- pages: a column after one is read by walking that value's pages (about 64
-- for a 256 KB state), so a listing, which reads neither, read them all.

CREATE TABLE runs_0006 (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    graph TEXT NOT NULL,
    caller_thread TEXT NOT NULL,
    call TEXT NOT NULL,
    status TEXT NOT NULL,
    replica TEXT NOT NULL,
    started_at TEXT NOT NULL,
    request_id TEXT,
    fingerprint BLOB,
    call_json TEXT NOT NULL,
    epoch INTEGER,
    attempts INTEGER NOT NULL,
    durable INTEGER NOT NULL,
    keeps_events INTEGER NOT NULL,
    on_disconnect INTEGER NOT NULL,
    background INTEGER NOT NULL,
    ended_at TEXT,
    checkpoint_id TEXT,
    started BLOB,
    last_seq INTEGER NOT NULL DEFAULT 0,
    outcome BLOB,
    request BLOB NOT NULL,
    finished BLOB
);
INSERT INTO runs_0006 (
    run_id, thread_id, graph, caller_thread, call, status, replica, started_at, request_id, fingerprint, call_json, epoch,
    attempts, durable, keeps_events, on_disconnect, background, ended_at, checkpoint_id, started, last_seq, request, finished
)
SELECT
    run_id, thread_id, graph, caller_thread, call, status, replica, started_at, request_id, fingerprint, call_json, epoch,
    attempts, durable, keeps_events, on_disconnect, background, ended_at, checkpoint_id, started, last_seq, request, finished
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_0006 RENAME TO runs;
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_listing ON runs (thread_id, started_at, run_id);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');
