-- 0004: run records and their events (durable turns; see engine/checkpoint/_runs.py).
--
-- runs: one row per run a host started (the server: every Invoke, Resume,
--   Fork and UpdateState). thread_id is the checkpointer's thread id, so the
--   thread's delete takes its runs with it. request_id: unique per thread
--   (a retry of the same call finds the first attempt's row). Times are
--   ISO-8601 text in UTC, so they sort as text. started/finished: the run's
--   first and last events, as the host sent them (opaque bytes).
-- run_events: the events of runs that keep them, keyed by (run_id, seq).

CREATE TABLE runs (
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
    request BLOB NOT NULL,
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
    finished BLOB,
    last_seq INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_thread ON runs (thread_id, started_at);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');

CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    thread_id TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_events_thread ON run_events (thread_id);
