-- 0008: which run replaced which (issue 33, item 4: double-texting).
--
-- replaces: the run this one cancelled as it started (multitask strategy
--   INTERRUPT or ROLLBACK); replaced_by: the run that cancelled this one.
--   NULL when none (every row written before).
-- The table is rebuilt, as in 0006, so that request and finished (the large
-- values) stay after every column a listing reads.

CREATE TABLE runs_0007 (
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
    replaces TEXT,
    replaced_by TEXT,
    request BLOB NOT NULL,
    finished BLOB
);
INSERT INTO runs_0007 (
    run_id, thread_id, graph, caller_thread, call, status, replica, started_at, request_id, fingerprint, call_json, epoch,
    attempts, durable, keeps_events, on_disconnect, background, ended_at, checkpoint_id, started, last_seq, outcome, request,
    finished
)
SELECT
    run_id, thread_id, graph, caller_thread, call, status, replica, started_at, request_id, fingerprint, call_json, epoch,
    attempts, durable, keeps_events, on_disconnect, background, ended_at, checkpoint_id, started, last_seq, outcome, request,
    finished
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_0007 RENAME TO runs;
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_listing ON runs (thread_id, started_at, run_id);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');
