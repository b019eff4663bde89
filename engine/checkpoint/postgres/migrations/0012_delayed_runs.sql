-- 0012: delayed runs (issue 34's after_seconds; see engine/checkpoint/_delayed.py).
--
-- delayed_runs: a row per run asked to start later, removed once it started
--   (its run record takes over). thread_id NULL: a stateless run's. status:
--   pending, cancelled or error (message says why).
-- delayed_runs_due: a starter's claim of the pending rows due, oldest first
--   (FOR UPDATE SKIP LOCKED: two replicas claiming at once take different rows).
-- delayed_runs_thread: a thread's rows, for its run listing.

CREATE TABLE delayed_runs (
    run_id text COLLATE "C" PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    thread_id text COLLATE "C",
    body jsonb NOT NULL,
    status text NOT NULL,
    message text NOT NULL,
    not_before timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX delayed_runs_due ON delayed_runs (not_before) WHERE status = 'pending';
CREATE INDEX delayed_runs_thread ON delayed_runs (tenant, thread_id);
