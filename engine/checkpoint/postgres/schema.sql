-- The current schema, applied as a whole to a new database (or schema).
--
-- Must stay equal to applying every file in migrations/ in order: change the
-- schema by adding a numbered migration AND updating this file
-- (tests/checkpoint/test_postgres.py compares the two catalogs).
-- See migrations/0001_init.sql, 0002_leases.sql and 0004_refs.sql for what each table holds.

CREATE TABLE checkpoints (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id text COLLATE "C" NOT NULL,
    parent_checkpoint_id text COLLATE "C",
    ts text NOT NULL,
    type text NOT NULL,
    checkpoint bytea NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    versions json NOT NULL,
    run_id uuid,  -- the run that wrote the version, out of its metadata (migration 0014)
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);

CREATE TABLE blobs (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    channel text COLLATE "C" NOT NULL,
    version bigint NOT NULL,
    type text NOT NULL,
    data bytea NOT NULL,
    base_version bigint,
    seq integer NOT NULL DEFAULT 0,
    ref_ns text COLLATE "C",
    ref_channel text COLLATE "C",
    ref_version bigint,
    ref_key text,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version),
    CONSTRAINT blobs_base_fkey FOREIGN KEY (thread_id, checkpoint_ns, channel, base_version)
        REFERENCES blobs (thread_id, checkpoint_ns, channel, version),
    CONSTRAINT blobs_ref_fkey FOREIGN KEY (thread_id, ref_ns, ref_channel, ref_version)
        REFERENCES blobs (thread_id, checkpoint_ns, channel, version)
);

-- Data stays in the table's pages when it fits (migration 0015).
ALTER TABLE blobs ALTER COLUMN data SET STORAGE MAIN;

-- The foreign key's reverse lookup (is this blob some delta's base?), run for
-- every deleted blob; full values (most rows but one per run) stay out of it.
CREATE INDEX blobs_base_idx ON blobs (thread_id, checkpoint_ns, channel, base_version)
    WHERE base_version IS NOT NULL;
-- The same for rows extending another namespace's or channel's list (0004_refs.sql).
CREATE INDEX blobs_ref_idx ON blobs (thread_id, ref_ns, ref_channel, ref_version)
    WHERE ref_version IS NOT NULL;

CREATE TABLE writes (
    thread_id text COLLATE "C" NOT NULL,
    checkpoint_ns text COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    idx integer NOT NULL,
    channel text NOT NULL,
    type text NOT NULL,
    data bytea NOT NULL,
    task_path text NOT NULL DEFAULT '',
    ref_ns text COLLATE "C",
    ref_channel text COLLATE "C",
    ref_version bigint,
    ref_key text,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx),
    CONSTRAINT writes_ref_fkey FOREIGN KEY (thread_id, ref_ns, ref_channel, ref_version)
        REFERENCES blobs (thread_id, checkpoint_ns, channel, version)
);

CREATE INDEX writes_ref_idx ON writes (thread_id, ref_ns, ref_channel, ref_version)
    WHERE ref_version IS NOT NULL;

-- See migrations/0002_leases.sql and 0003_lease_holder.sql.
CREATE TABLE leases (
    thread_id text COLLATE "C" NOT NULL,
    owner text NOT NULL,
    epoch bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    head text COLLATE "C",
    holder bigint,
    PRIMARY KEY (thread_id)
);

-- See migrations/0005_runs.sql.
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
    last_seq integer NOT NULL DEFAULT 0,
    outcome bytea,
    replaces text COLLATE "C",  -- migration 0009
    replaced_by text COLLATE "C"
);
CREATE UNIQUE INDEX runs_request ON runs (thread_id, request_id) WHERE request_id IS NOT NULL;
CREATE INDEX runs_listing ON runs (thread_id, started_at, run_id);  -- migration 0007
CREATE INDEX runs_active ON runs (status) WHERE status IN ('PENDING', 'RUNNING', 'RECOVERING');

-- A row: the events of one write, seq to last_seq, packed (migration 0006).
CREATE TABLE run_events (
    run_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    thread_id text COLLATE "C" NOT NULL,
    data bytea NOT NULL,
    last_seq integer NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_events_thread ON run_events (thread_id);

-- See migrations/0008_threads.sql.
CREATE TABLE threads (
    thread_id text COLLATE "C" PRIMARY KEY,
    graph text NOT NULL,
    caller_thread text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    tenant text COLLATE "C" NOT NULL DEFAULT '',
    metadata jsonb NOT NULL DEFAULT '{}',
    status text NOT NULL DEFAULT 'idle',
    interrupts bytea NOT NULL DEFAULT '',
    ttl_seconds integer,
    ttl_strategy text,
    expires_at timestamptz
);
CREATE INDEX threads_created ON threads (tenant, created_at, thread_id);
CREATE INDEX threads_updated ON threads (tenant, updated_at, thread_id);
CREATE INDEX threads_metadata ON threads USING gin (metadata jsonb_path_ops);
CREATE INDEX threads_expiry ON threads (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX threads_caller ON threads (tenant, caller_thread);  -- migration 0013

-- Assistants: each one's current version, and all its versions (migration 0010).
CREATE TABLE assistants (
    tenant text COLLATE "C" NOT NULL,
    assistant_id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    graph text NOT NULL,
    name text NOT NULL,
    description text,
    config jsonb NOT NULL,
    context jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, assistant_id)
);
CREATE INDEX assistants_graph ON assistants (tenant, graph);
CREATE INDEX assistants_created ON assistants (tenant, created_at);
CREATE INDEX assistants_updated ON assistants (tenant, updated_at);
CREATE INDEX assistants_metadata ON assistants USING gin (metadata jsonb_path_ops);
CREATE TABLE assistant_versions (
    tenant text COLLATE "C" NOT NULL,
    assistant_id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    graph text NOT NULL,
    name text NOT NULL,
    description text,
    config jsonb NOT NULL,
    context jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, assistant_id, version)
);

CREATE TABLE crons (
    cron_id text COLLATE "C" PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    assistant_id text NOT NULL,
    thread_id text,
    user_id text,
    schedule text NOT NULL,
    timezone text,
    next_run_date timestamptz,
    end_time timestamptz,
    enabled boolean NOT NULL,
    on_run_completed text,
    payload jsonb NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX crons_due ON crons (next_run_date) WHERE enabled;
CREATE INDEX crons_tenant ON crons (tenant, created_at);

CREATE TABLE webhooks (
    run_id text COLLATE "C" PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    url text NOT NULL,
    attempts integer NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at);

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
