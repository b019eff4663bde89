-- 0005: run records and their events (durable turns; see engine/checkpoint/_runs.py).
--
-- runs: one row per run a host started (the server: every Invoke, Resume,
--   Fork and UpdateState). thread_id is the checkpointer's thread id, so the
--   thread's delete takes its runs with it. request_id: unique per thread
--   (a retry of the same call finds the first attempt's row). epoch: the
--   lease epoch the run holds its thread by; a durable active run whose
--   thread's live lease is not (replica, epoch) was left by a replica that is
--   gone (engine/checkpoint/postgres/_runs.py, ORPHANS). started/finished: the
--   run's first and last events, as the host sent them (opaque bytes).
-- run_events: the events of runs that keep them, keyed by (run_id, seq).

CREATE TABLE runs (
    run_id text COLLATE "C" PRIMARY KEY,
    thread_id text COLLATE "C" NOT NULL,
    graph text NOT NULL,
    caller_thread text NOT NULL,
    call text NOT NULL,
    status text NOT NULL,
    replica text NOT NULL,
    started_at timestamptz NOT NULL,
    request_id text COLLATE "C",
    fingerprint bytea,
    request bytea NOT NULL,
    call_json text NOT NULL,
    epoch bigint,
    attempts integer NOT NULL,
    durable boolean NOT NULL,
    keeps_events boolean NOT NULL,
    on_disconnect integer NOT NULL,
    background boolean NOT NULL,
    ended_at timestamptz,
    checkpoint_id text COLLATE "C",
    started bytea,
    finished bytea,
    last_seq integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_thread ON runs (thread_id, started_at);
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');

CREATE TABLE run_events (
    run_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    thread_id text COLLATE "C" NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_events_thread ON run_events (thread_id);
