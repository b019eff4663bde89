-- 0010: crons (issue 34; see engine/checkpoint/_crons.py).
--
-- crons: a row per cron, its own tenant's (tenant '': no tenants). payload and
--   metadata: JSON objects as text; times ISO-8601 in UTC (they sort as text).
--   thread_id NULL: a stateless cron (a new thread per firing). next_run_date
--   NULL: it fires no more.
-- crons_due: the scheduler's claim of the enabled crons due, oldest first.
-- crons_tenant: a search within a tenant.

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

-- webhooks: the outbox of the webhooks to send (engine/checkpoint/_webhooks.py),
--   a row per run started with a webhook, removed once delivered.
-- webhooks_due: a sender's claim of the rows due, oldest first.
CREATE TABLE webhooks (
    run_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    url TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at);
