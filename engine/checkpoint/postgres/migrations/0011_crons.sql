-- 0011: crons (issue 34; see engine/checkpoint/_crons.py).
--
-- crons: a row per cron, its own tenant's (tenant '': no tenants). thread_id
--   NULL: a stateless cron (a new thread per firing). next_run_date NULL: it
--   fires no more.
-- crons_due: the scheduler's claim of the enabled crons due, oldest first
--   (FOR UPDATE SKIP LOCKED: two replicas claiming at once take different rows).
-- crons_tenant: a search within a tenant.

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

-- webhooks: the outbox of the webhooks to send (engine/checkpoint/_webhooks.py),
--   a row per run started with a webhook, removed once delivered.
-- webhooks_due: a sender's claim of the rows due, oldest first (SKIP LOCKED).
CREATE TABLE webhooks (
    run_id text COLLATE "C" PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    url text NOT NULL,
    attempts integer NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at);
