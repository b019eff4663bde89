-- The current schema, applied as a whole to a new database.
--
-- Must stay equal to applying every file in migrations/ in order: change the
-- schema by adding a numbered migration AND updating this file
-- (tests/checkpoint/test_sqlite.py compares the two).

CREATE TABLE checkpoints (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    ts TEXT NOT NULL,
    type TEXT NOT NULL,
    checkpoint BLOB NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    run_id BLOB,  -- the run that wrote the version (16 bytes), out of its metadata (migration 0013)
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);

CREATE TABLE blobs (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL,
    version INTEGER NOT NULL,
    type TEXT NOT NULL,
    data BLOB NOT NULL,
    base_version INTEGER,  -- NULL: a full value; else the version whose list value this row's items extend
    seq INTEGER NOT NULL DEFAULT 0,  -- position in the append run (0 = full); picks the next delta's base
    ref_ns TEXT,  -- ref_*: the row of another namespace or channel whose list this row extends
    ref_channel TEXT,  -- (migrations/0003_refs.sql)
    ref_version INTEGER,
    ref_key TEXT,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);

CREATE TABLE writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT NOT NULL,
    data BLOB NOT NULL,
    task_path TEXT NOT NULL DEFAULT '',
    ref_ns TEXT,  -- ref_*: the blob row whose list this write's value extends
    ref_channel TEXT,
    ref_version INTEGER,
    ref_key TEXT,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);

-- Run records and their events: see migrations/0004_runs.sql; request and
-- finished (large) come last so that a listing reads no overflow page of
-- theirs (migration 0006).
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
    replaces TEXT,  -- migration 0008
    replaced_by TEXT,
    request BLOB NOT NULL,
    finished BLOB
);
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_listing ON runs (thread_id, started_at, run_id);  -- migration 0006
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');

-- A row: the events of one write, seq to last_seq, packed (migration 0005).
CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    thread_id TEXT NOT NULL,
    data BLOB NOT NULL,
    last_seq INTEGER,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_events_thread ON run_events (thread_id);

-- Thread records: see migrations/0007_threads.sql.
CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    graph TEXT NOT NULL,
    caller_thread TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    tenant TEXT NOT NULL DEFAULT '',
    metadata TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'idle',
    interrupts BLOB NOT NULL DEFAULT X'',
    ttl_seconds INTEGER,
    ttl_strategy TEXT,
    expires_at TEXT
);
CREATE INDEX threads_created ON threads (tenant, created_at, thread_id);
CREATE INDEX threads_updated ON threads (tenant, updated_at, thread_id);
CREATE INDEX threads_expiry ON threads (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX threads_caller ON threads (tenant, caller_thread);  -- migration 0012

-- Assistants: each one's current version, and all its versions (migration 0009).
CREATE TABLE assistants (
    tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, assistant_id)
);
CREATE INDEX assistants_graph ON assistants (tenant, graph);
CREATE INDEX assistants_created ON assistants (tenant, created_at);
CREATE INDEX assistants_updated ON assistants (tenant, updated_at);
CREATE TABLE assistant_versions (
    tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, assistant_id, version)
);

CREATE TABLE crons (
    cron_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    thread_id TEXT,
    user_id TEXT,
    schedule TEXT NOT NULL,
    timezone TEXT,
    next_run_date TEXT,
    end_time TEXT,
    enabled INTEGER NOT NULL,
    on_run_completed TEXT,
    payload TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX crons_due ON crons (enabled, next_run_date);
CREATE INDEX crons_tenant ON crons (tenant, created_at);

CREATE TABLE webhooks (
    run_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    url TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at);

CREATE TABLE delayed_runs (
    run_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    thread_id TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL,
    not_before TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX delayed_runs_due ON delayed_runs (status, not_before);
CREATE INDEX delayed_runs_thread ON delayed_runs (tenant, thread_id);
